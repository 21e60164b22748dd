#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DocsService } from '../../internal/docs-server/docs-service.js';
import { parseArgs } from './args.js';
import { packageVersion } from '../../internal/shared/version.js';

// stdout carries MCP only: anything a library prints goes to stderr.
console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

const log = (msg: string): void => {
  process.stderr.write(`mcpd-docs: ${msg}\n`);
};

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    log((e as Error).message);
    process.exit(2);
  }
  if (args.version) {
    process.stdout.write(`${packageVersion()}\n`);
    process.exit(0);
  }
  const service = new DocsService({ host: args.host, dirs: args.dirs, log, limits: args.limits });
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    // Ignored: shutting down: a failed stop or close leaves nothing to recover, and exit follows.
    await service.stop().catch(() => undefined);
    await service.mcp.server.close().catch(() => undefined); // likewise: the process exits next
    process.exit(0);
  };
  // stop() never rejects (see above): each of these only starts it.
  transport.onclose = () => void stop('client closed the connection');
  // Likewise: stdin ending is the client gone.
  process.stdin.on('end', () => void stop('stdin closed'));
  // stop() handles every failure itself and ends in process.exit: there is nothing to await or catch.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal));
  // Connected before the folders are scanned: `initialize` never waits on a file; listings wait for the scan.
  await service.mcp.server.connect(transport);
  await service.start();
}

main().catch((e: unknown) => {
  log(`fatal: ${(e as Error)?.stack ?? String(e)}`);
  process.exit(1);
});

#!/usr/bin/env node
import { packageVersion } from '../../internal/shared/version.js';
import { BridgeHost } from '../../internal/desktop-host/host.js';
import { LinuxBackend } from '../../internal/desktop-host/linux/linux-backend.js';
import { BridgeSocketServer } from '../../internal/desktop-host/socket-server.js';
import { serveMcp } from '../../internal/desktop-host/mcp/mcp-face.js';
import { HelpRequested, parseArgs } from './args.js';

// In --mcp mode stdout carries MCP only: anything a library prints goes to stderr.
console.log = console.error;
console.info = console.error;

const log = (msg: string): void => void process.stderr.write(`mcpd-desktop-host: ${msg}\n`);

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof HelpRequested) {
      process.stdout.write(`${e.message}\n`);
      process.exit(0);
    }
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  const backend = new LinuxBackend();
  const host = new BridgeHost({ backend, workspaceRoot: args.workspaceRoot, hostVersion: packageVersion() });
  await host.start();
  let stopping = false;
  let closeFace: () => Promise<void> = async () => undefined;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    // Ignored: shutting down: a face that fails to close leaves nothing to recover, and exit follows.
    await closeFace().catch(() => undefined);
    await backend.close().catch(() => undefined); // likewise: the process exits next
    process.exit(0);
  };
  // stop() handles every failure itself and ends in process.exit: there is nothing to await or catch.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal));
  if (args.socket) {
    const server = new BridgeSocketServer(host, log);
    await server.listen(args.socket);
    closeFace = () => server.close();
    log(`listening on ${args.socket} (workspace root ${args.workspaceRoot})`);
    return;
  }
  closeFace = await serveMcp(host, {
    pollMs: args.pollMs,
    log,
    workspaceRoot: args.workspaceRoot,
    // stop() never rejects (see above): the client going away just starts it.
    onClose: () => void stop('client closed the connection'),
  });
}

main().catch((e: unknown) => {
  log(`fatal: ${(e as Error)?.message ?? String(e)}`);
  process.exit(1);
});

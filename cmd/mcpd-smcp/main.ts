#!/usr/bin/env node
import { startSmcpServer, SmcpConfigError } from '../../internal/smcp/smcp-server.js';
import { parseSmcpArgs } from './args.js';

const log = (msg: string): void => {
  process.stderr.write(`mcpd-smcp: ${msg}\n`);
};

// The Redis adapter's close() unsubscribes without handling the promises; when Redis is already gone
// they reject. A router must not die of that (nor of any other stray rejection): log and carry on.
process.on('unhandledRejection', (e: unknown) => log(`ignored unhandled rejection: ${(e as Error)?.message ?? String(e)}`));

async function main(): Promise<void> {
  let args;
  try {
    args = parseSmcpArgs(process.argv.slice(2), process.env);
  } catch (e) {
    log((e as Error).message);
    process.exit(2);
  }
  if (!args.apiKey) log(`no API key (${args.apiKeyEnv} is unset): any local process may connect`);
  let server;
  try {
    server = await startSmcpServer({
      host: args.listen.host,
      port: args.listen.port,
      apiKey: args.apiKey,
      redisUrl: args.redis,
      nodeSecret: args.nodeSecret,
      nodeSecretEnv: args.nodeSecretEnv,
      maxPayloadBytes: args.maxPayloadBytes,
      inFlight: {
        ...(args.maxInFlightPerAgent && { perAgent: args.maxInFlightPerAgent }),
        ...(args.maxInFlightPerComputer && { perComputer: args.maxInFlightPerComputer }),
      },
      log,
    });
  } catch (e) {
    log((e as Error).message);
    process.exit(e instanceof SmcpConfigError ? 2 : 1);
  }
  // Tests and supervisors read the bound port from this line.
  process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port, node: server.node })}\n`);
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    // The process exits when close settles, either way; a failed close has nothing left to clean up.
    void server.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  log(`fatal: ${(e as Error)?.stack ?? String(e)}`);
  process.exit(1);
});

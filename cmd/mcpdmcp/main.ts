#!/usr/bin/env node
import { assertSocketOwner } from '../../internal/contract/session/socket-path.js';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { StdioServerLineTransport } from '../../internal/gateway/stdio-server-transport.js';
import { packageVersion } from '../../internal/shared/version.js';
import { WriteBatcher } from '../../internal/shared/jsonrpc/turn-writes.js';
import { COMMON_OPTIONS, configFrom, exitOnHelpOrVersion, parseOrExit, socketFrom } from '../../internal/launch/common-flags.js';
import { startCoreDaemon, type StartedCore } from '../../internal/launch/autostart.js';
import { answerInitializeEarly, isModernFirstMessage } from '../../internal/gateway/early-initialize.js';
import { mapStackTracesLazily } from '../../internal/shared/lazy-source-maps.js';
import { tierUpSooner } from '../../internal/shared/jit-tiering.js';
// Static imports are only what answering `initialize` needs; the gateway itself (the SDK server, the core
// Session) is imported once the client has spoken, so its code never delays the first answer.

const USAGE = `usage: mcpdmcp <caller> [--socket PATH] [--config DIR] [--no-autostart] [--core-wait-ms N]
                        [--http HOST:PORT [--token-file FILE | --token TOKEN|auto]]

An MCP server on stdio for one caller. It forwards the session to the mcpd core and starts a core
(with --config DIR, env MCPD_CONFIG) when none is listening, unless --no-autostart is given.
A request waits up to --core-wait-ms (default 15000) for a core to answer before it fails.

--http HOST:PORT serves MCP streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 = any
free port; the URL is printed on stderr). Each HTTP session is its own gateway session; all of them
share one connection to the core. A loopback address refuses foreign Host/Origin headers; any other
address needs a token, which clients send as
"Authorization: Bearer TOKEN": --token-file FILE (the file holds it), env MCPD_HTTP_TOKEN, or --token
TOKEN (visible to every local user in the process list). --token auto generates one and prints the
client settings. Without a token, any local user can call the caller's tools on loopback.
--max-sessions N caps open HTTP sessions (default 64; the oldest idle one is closed for a new one).`;

// Stack traces point into the TypeScript sources (the bundles' .map files), each map read only when a
// stack that needs it is printed: Node's own source maps cost every session some 4.7 MiB.
mapStackTracesLazily();

const { values, positionals } = parseOrExit(
  {
    options: {
      ...COMMON_OPTIONS,
      'no-autostart': { type: 'boolean' },
      'core-wait-ms': { type: 'string' },
      http: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      'max-sessions': { type: 'string' },
    },
    allowPositionals: true,
  },
  USAGE,
);
exitOnHelpOrVersion(values, USAGE, packageVersion);
const caller = positionals[0];
if (!caller || positionals.length > 1) {
  process.stderr.write(`mcpdmcp needs exactly one caller name\n\n${USAGE}\n`);
  process.exit(2);
}

// This process forwards every call of its client's session: its per-call code is optimized sooner.
tierUpSooner();
const configDir = resolve(configFrom(values.config));
const socket = await socketFrom(values.socket, process.env, configDir);
try {
  assertSocketOwner(socket);
} catch (e) {
  process.stderr.write(`mcpdmcp: ${(e as Error).message}\n`);
  process.exit(1);
}
const coreWaitMs = Number(values['core-wait-ms'] ?? 15_000);
if (!Number.isInteger(coreWaitMs) || coreWaitMs < 0) {
  process.stderr.write(`--core-wait-ms must be a whole number of milliseconds, got "${values['core-wait-ms']}"\n`);
  process.exit(2);
}
const log = (msg: string) => process.stderr.write(`mcpdmcp[${caller}]: ${msg}\n`);
const coreEntry = resolve(fileURLToPath(import.meta.url), '../../mcpd/main.js');
// One start per process at a time, however many sessions (HTTP mode) find the core missing at once.
let lastCoreStarted: StartedCore | undefined;

if ((values.token !== undefined || values['token-file'] !== undefined) && values.http === undefined) {
  process.stderr.write(`--token and --token-file only apply to --http HOST:PORT (stdio needs no token)\n\n${USAGE}\n`);
  process.exit(2);
}
// A stdio gateway is spawned by a client that is about to list: a missing core starts now, not after
// `initialize` and the gateway's load (startCoreAtSpawn).
const coreAtSpawn = values.http === undefined && !values['no-autostart'] ? startCoreAtSpawn() : undefined;
// On stdio, `initialize` is answered while the rest loads (early-initialize.ts).
// One write batcher for the process: a read from the core holds the stdout writes it causes, and back.
const batcher = new WriteBatcher();
const transport = values.http === undefined ? new StdioServerLineTransport(process.stdin, process.stdout, batcher) : undefined;
// The first message also chooses the connection's era: `initialize` a 2025-11-25 session, a request with
// 2026-07-28 `_meta` (or `server/discover`) stateless requests, whose code loads only then (docs/eras.md).
const first = transport ? await answerInitializeEarly(transport, { caller, version: packageVersion() }) : undefined;
const gatewayOptions = {
  caller,
  socket,
  version: packageVersion(),
  coreWaitMs,
  log,
  batcher,
  startCore: values['no-autostart']
    ? undefined
    : () => {
        // The core started at spawn is this link's first start: it reports that core's failure and polls for it.
        const early = coreAtSpawn?.take();
        if (early) return early;
        // A core started before that is still running is still coming up (seconds on a loaded machine):
        // a second one would only be refused.
        if (lastCoreStarted?.pid !== undefined && processAlive(lastCoreStarted.pid)) return undefined;
        lastCoreStarted = startCoreDaemon({ coreEntry, socket, configDir });
        logStart(lastCoreStarted, '');
        return lastCoreStarted;
      },
};

if (values.http !== undefined) {
  // The HTTP gateway (the SDK's Server, the HTTP transport) is a module of its own that a stdio session
  // never loads (serve-http.ts).
  const { serveHttp } = await import('../../internal/gateway/serve-http.js');
  await serveHttp({
    gateway: gatewayOptions,
    address: values.http,
    tokens: { token: values.token, tokenFile: values['token-file'], envToken: process.env.MCPD_HTTP_TOKEN },
    maxSessions: values['max-sessions'],
  });
} else if (transport && isModernFirstMessage(first)) {
  await serveStdioStateless(transport);
} else if (transport) {
  await serveStdio(transport);
}

async function serveStdio(transport: StdioServerLineTransport): Promise<void> {
  // The SDK's Server is not loaded on stdio: the gateway's own dispatcher serves the session.
  const { StdioGateway } = await import('../../internal/gateway/stdio-gateway.js');
  const gateway = new StdioGateway(gatewayOptions, transport);
  // The client closing stdin ends the session; the gateway then exits (its core keeps running).
  const exit = () => void gateway.close().finally(() => process.exit(0));
  gateway.onclose = exit;
  process.stdin.on('end', exit);
  await gateway.start();
  // stdin may have ended while the gateway loaded ('end' came and went): the session is over all the same.
  if (process.stdin.readableEnded) exit();
}

async function serveStdioStateless(transport: StdioServerLineTransport): Promise<void> {
  // Each 2026-07-28 request is served by an SDK-Server gateway of its own, as on --http (serve-http.ts).
  const [{ sharedGateways }, { StdioStatelessGateway }] = await Promise.all([
    import('../../internal/gateway/serve-http.js'),
    import('../../internal/gateway/era2026/stdio-endpoint.js'),
  ]);
  const newGateway = sharedGateways(gatewayOptions);
  const gateway = new StdioStatelessGateway(
    { newSession: newGateway, caller: gatewayOptions.caller, version: packageVersion(), log },
    transport,
  );
  // As on a 2025 session: the client closing stdin ends the connection; the process exits whatever close() did.
  const exit = () => void gateway.close().finally(() => process.exit(0));
  gateway.onclose = exit;
  process.stdin.on('end', exit);
  await gateway.start();
  if (process.stdin.readableEnded) exit();
}

/**
 * Says which core this gateway started, and when that core gave way to one another gateway started at the
 * same moment: only the core that serves is reported as started.
 */
function logStart(core: StartedCore, why: string): void {
  log(`${why}starting core pid ${core.pid}; its log is ${core.logFile}`);
  // lostRace never rejects (it settles only on that exit); nothing waits for this line.
  void core.lostRace.then(() => log(`core pid ${core.pid} gave way: another core of this store started at the same time serves`));
}

/**
 * Starts the core right after the gateway's first turn (its `initialize` answer, when the client's line is
 * already there, goes first) when none can be running: its socket file is missing. A file that is there is a
 * live core or a stale socket, which the core link finds out as before. The start is handed to the core
 * link once (`take`), as if it had made it: it then reports that core's failure and polls its socket.
 */
function startCoreAtSpawn(): { take(): StartedCore | undefined } {
  let started: StartedCore | undefined;
  let taken = false;
  setImmediate(() => {
    if (taken || existsSync(socket)) return;
    try {
      started = lastCoreStarted = startCoreDaemon({ coreEntry, socket, configDir });
      logStart(started, `no core's socket at ${socket}; `);
    } catch {
      // Not startable here (e.g. a log directory it may not use): the core link tries again and says why.
    }
  });
  return {
    take: () => {
      if (taken) return undefined;
      taken = true;
      return started;
    },
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: it exited (a stop, a crash, a refused start): a new one may be started.
    return false;
  }
}

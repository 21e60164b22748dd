import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchContext, Launcher } from '../../../contract/model/downstream.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { specFingerprint } from '../../../contract/model/fingerprint.js';
import { authFetch } from '../oauth/auth-fetch.js';
import { StoredOAuthProvider } from '../../../contract/oauth/provider.js';
import { authFailure } from '../../../contract/oauth/sign-in-error.js';
import type { OAuthStore } from '../../../contract/oauth/token-store.js';
import { serverEnvironment } from './env.js';
import { sandboxedCommand } from './sandbox/sandboxed-command.js';
import { pinnedCmd, type CheckedPins } from './package-pinning.js';
import { denialLine, describeDenials, sandboxDenials } from './sandbox/denials.js';
import type { ListGuards } from './list-tools.js';
import { Reaper } from './reaper.js';
import { httpTarget, type HttpTarget } from './http-target.js';
import { McpSession, type SessionClient } from './session.js';
import { ProcessStdioTransport } from './stdio-transport.js';
import { probeHttp, probeStdio, type EraVerdict, type ProbeIdentity } from './era-probe.js';
import type { WriteBatcher } from '../../../shared/jsonrpc/turn-writes.js';

/** SDK v2, loaded the first time a server turns out to speak 2026-07-28 (modern-client.ts says why). */
const modernSdk = () => import('./modern-client.js');
/** SDK v1's client and HTTP transports, loaded when the first server starts (legacy-sdk.ts says why). */
const legacySdk = () => import('./legacy-sdk.js');

/** A server→client request (sampling, roots, elicitation …) arriving on a downstream session. */
/** `signal` aborts when the server cancels its request (notifications/cancelled) or the session ends. */
export type ServerRequestHandler = (
  spec: ServerSpec,
  instanceId: string,
  method: string,
  params: JsonObject,
  signal?: AbortSignal,
) => Promise<JsonObject>;

export interface LauncherOptions {
  /** Capabilities declared to downstream servers; none by default. */
  clientCapabilities?: JsonObject;
  /** Without it, server→client requests get "method not found" at once instead of hanging. */
  onServerRequest?: ServerRequestHandler;
  /** Bound on spawn + initialize handshake. */
  connectTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace when the caller gives none; default spec.drainTimeoutSeconds. */
  graceMs?: number;
  /** Kill children when the core dies (reaper sidecar); default true. */
  reaper?: boolean;
  listGuards?: ListGuards;
  clientInfo?: { name: string; version: string };
  /** Environment the base variables are taken from; default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  onEvent?: (message: string) => void;
  /** Where HTTP servers' OAuth tokens live; absent = no OAuth (a 401 is an ordinary start failure). */
  oauth?: OAuthStore;
  /**
   * How long a server may take to answer `server/discover` before it is taken for a 2025-11-25 one
   * (a stdio server that ignores unknown requests); default 5 s.
   */
  eraProbeTimeoutMs?: number;
  /** The process's write batcher (turn-writes.ts), shared with the core's Sessions. */
  batcher?: WriteBatcher;
  /** mcpd's own paths (store, state, control socket folder) that no sandboxed server sees, whatever its grants. */
  sandboxProtectedPaths?: () => string[];
  /** Where npx packages are pinned (`<state dir>`); absent = started as written. */
  stateDir?: string;
}

export interface ManagedLauncher extends Launcher {
  launch(spec: ServerSpec, ctx: LaunchContext): Promise<McpSession>;
  /** Stops every live session and ends the reaper sidecar. */
  shutdown(): Promise<void>;
  /** Sessions started and not yet ended. */
  liveSessions(): number;
  /** pid of the reaper sidecar, if running. */
  reaperPid(): number | undefined;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
const DEFAULT_ERA_PROBE_TIMEOUT_MS = 5_000;

/** A transport with what the era probe decided for it. */
interface Prepared {
  transport: Transport;
  verdict: EraVerdict;
}

export function createLauncher(opts: LauncherOptions = {}): ManagedLauncher {
  const reaper = opts.reaper === false ? undefined : new Reaper(opts.onEvent);
  const live = new Set<McpSession>();
  let down = false;

  const clientInfo = opts.clientInfo ?? { name: 'mcpd', version: '0.1.0' };
  const identity: ProbeIdentity = { clientInfo, clientCapabilities: opts.clientCapabilities ?? {} };
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // What server/discover said per spec fingerprint: a pool's next instances skip the probe (the SDK's
  // "prior discovery"); a new spec (new fingerprint) is probed again, so an upgraded server is seen.
  const verdicts = new Map<string, EraVerdict>();
  // Which pools' package pins the registry confirmed in this run (package-pinning.ts).
  const checkedPins: CheckedPins = new Map();

  async function launch(spec: ServerSpec, ctx: LaunchContext): Promise<McpSession> {
    if (down) throw new McpdError('UNAVAILABLE', `cannot start server ${spec.name}: the launcher is shutting down`);
    const graceMs = opts.graceMs ?? spec.drainTimeoutSeconds * 1000;
    let session: McpSession | undefined;
    // Lines the server writes while the era probe runs (before the session exists) are kept for it.
    const early: string[] = [];
    const onStderr = (line: string) => (session ? session.stderrLine(line) : early.push(line));
    let prepared: Prepared;
    try {
      prepared = await prepare(spec, graceMs, onStderr, ctx.signal);
    } catch (err) {
      throw startError(spec, undefined, err, ctx.signal);
    }
    const { transport, verdict } = prepared;
    const sdk = await sessionClient(spec, ctx, verdict);
    // Protocol problems (lines that are not JSON-RPC, an oversized answer) would vanish in the SDK's
    // unset onerror: they go to the server's log lines, where the caller's logs show them.
    sdk.client.onerror = (err) => session?.stderrLine(`[mcpd] ${err.message}`);
    const listTimeoutMs = spec.callTimeoutSeconds * 1000;
    session = new McpSession({ serverName: spec.name, sdk, transport, listTimeoutMs, graceMs, guards: opts.listGuards });
    for (const line of early.splice(0)) session.stderrLine(line);
    live.add(session);
    session.onClose(() => live.delete(session as McpSession));
    try {
      if (sdk.era === 'modern' && verdict.era === 'modern') {
        const { connectModern } = await modernSdk();
        await connectModern(sdk.client, transport, verdict.discover, { signal: ctx.signal, timeoutMs: connectTimeoutMs });
        await session.listen();
      } else if (sdk.era === 'legacy') {
        await sdk.client.connect(transport, { signal: ctx.signal, timeout: connectTimeoutMs });
      }
    } catch (err) {
      // Ignored: the start already failed; that error is what the caller sees.
      await session.close(0).catch(() => {});
      live.delete(session);
      throw startError(spec, transport, err, ctx.signal);
    }
    verdicts.set(specFingerprint(spec), verdict.era === 'exited' ? { era: 'legacy', why: verdict.why } : verdict);
    return session;
  }

  /**
   * The transport, and the era `server/discover` decided (or the one this spec's earlier instance got). A
   * stdio server is spawned for the probe and keeps running for its session; one that exits on the probe
   * is spawned again and spoken to as a 2025-11-25 server. SSE is a 2024 transport: always legacy.
   */
  async function prepare(spec: ServerSpec, graceMs: number, onStderr: (line: string) => void, signal?: AbortSignal): Promise<Prepared> {
    const known = verdicts.get(specFingerprint(spec));
    const probeMs = Math.min(opts.eraProbeTimeoutMs ?? DEFAULT_ERA_PROBE_TIMEOUT_MS, connectTimeoutMs);
    if (spec.transport === 'stdio') {
      const transport = await stdioTransport(spec, graceMs, onStderr);
      if (known) return { transport, verdict: known };
      // A spawn that fails still releases what the transport holds (a sandbox's proxy).
      await transport.startEarly().catch(async (err: unknown) => {
        await transport.stop(0);
        throw err;
      });
      const verdict = await probeStdio(transport.direct, identity, probeMs);
      if (verdict.era !== 'exited') return { transport, verdict };
      await transport.stop(0);
      opts.onEvent?.(`server ${spec.name} ${verdict.why}; starting it again as a 2025-11-25 server`);
      return { transport: await stdioTransport(spec, graceMs, onStderr), verdict };
    }
    const target = httpTarget(spec);
    const known2 = known ?? (spec.transport === 'sse' ? { era: 'legacy' as const, why: 'SSE transport' } : undefined);
    const verdict = known2 ?? (await probeHttp({ ...httpProbeOf(spec, target), timeoutMs: probeMs, signal }, identity));
    return { transport: await httpTransport(spec, target, verdict.era === 'modern'), verdict };
  }

  async function sessionClient(spec: ServerSpec, ctx: LaunchContext, verdict: EraVerdict): Promise<SessionClient> {
    const onReq = opts.onServerRequest;
    if (verdict.era === 'modern') {
      const onInputRequest = onReq
        ? (method: string, params: JsonObject, signal: AbortSignal) => onReq(spec, ctx.instanceId, method, params, signal)
        : undefined;
      const { createModernClient } = await modernSdk();
      return { era: 'modern', client: createModernClient({ clientInfo, capabilities: identity.clientCapabilities, onInputRequest }) };
    }
    const { Client } = await legacySdk();
    const client = new Client(clientInfo, { capabilities: identity.clientCapabilities as ClientCapabilities });
    if (onReq) {
      client.fallbackRequestHandler = async (req, extra) =>
        onReq(spec, ctx.instanceId, req.method, (req.params ?? {}) as JsonObject, extra.signal);
    }
    return { era: 'legacy', client };
  }

  async function stdioTransport(spec: ServerSpec, graceMs: number, onStderr: (line: string) => void): Promise<ProcessStdioTransport> {
    const [program, ...rest] = await pinnedCmd(spec, opts.stateDir, checkedPins, opts.onEvent);
    if (!program) throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: stdio transport needs "cmd" (program and arguments)`);
    let transport: ProcessStdioTransport | undefined;
    const run = spec.sandbox
      ? await sandboxedCommand({
          serverName: spec.name,
          sandbox: spec.sandbox,
          command: program,
          args: rest,
          env: serverEnvironment(spec.env, opts.baseEnv),
          cwd: spec.cwd ?? process.cwd(),
          protectedPaths: opts.sandboxProtectedPaths?.() ?? [],
          onDenied: (d) => (transport ?? { note: onStderr }).note(denialLine(d)),
        })
      : { command: program, args: rest, env: serverEnvironment(spec.env, opts.baseEnv), release: undefined };
    transport = new ProcessStdioTransport({
      serverName: spec.name,
      command: run.command,
      args: run.args,
      env: run.env,
      cwd: spec.cwd,
      graceMs,
      onStderr,
      reaper,
      batcher: opts.batcher,
      onGone: run.release,
    });
    return transport;
  }

  function httpProbeOf(spec: ServerSpec, { url, headers }: HttpTarget) {
    const fp = specFingerprint(spec);
    const bearer = opts.oauth?.read(fp).tokens?.access_token;
    return { url, headers, bearer, fetch: opts.oauth ? authFetch(opts.oauth, fp).fetch : undefined };
  }

  async function httpTransport(spec: ServerSpec, { url, headers }: HttpTarget, modern: boolean): Promise<Transport> {
    const requestInit = { headers };
    const fp = specFingerprint(spec);
    const observed = opts.oauth ? authFetch(opts.oauth, fp) : undefined;
    const authProvider =
      opts.oauth && observed ? new StoredOAuthProvider(spec, fp, opts.oauth, undefined, observed.lastRefresh) : undefined;
    const fetchFn = observed?.fetch;
    if (modern) return (await modernSdk()).modernHttpTransport(url, { requestInit, authProvider, fetch: fetchFn });
    const { SSEClientTransport, StreamableHTTPClientTransport } = await legacySdk();
    return spec.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit, authProvider, fetch: fetchFn })
      : new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch: fetchFn });
  }

  return {
    launch,
    async shutdown() {
      down = true;
      // Ignored: shutting down: every process group is killed below whatever close says.
      await Promise.all([...live].map((s) => s.close().catch(() => {})));
      await reaper?.end();
    },
    liveSessions: () => live.size,
    reaperPid: () => reaper?.pid,
  };
}

function startError(spec: ServerSpec, transport: Transport | undefined, err: unknown, signal?: AbortSignal): McpdError {
  if (err instanceof McpdError) return err;
  if (signal?.aborted) return new McpdError('CANCELLED', `start of server ${spec.name} was cancelled`);
  const auth = authFailure(spec.name, err);
  if (auth) return auth;
  let why = (err as Error)?.message ?? String(err);
  if (transport instanceof ProcessStdioTransport) {
    if (transport.fatalReason) why = `it was stopped because ${transport.fatalReason}`;
    else if (transport.exitInfo) why = `it exited (${transport.describeExit()}) before completing the MCP handshake`;
    const tail = transport.recentStderr();
    if (spec.sandbox) why += describeDenials(sandboxDenials(tail));
    if (tail.length) why += `; last stderr lines:\n  ${tail.slice(-5).join('\n  ')}`;
  }
  if (why.startsWith('cannot start server')) return new McpdError('UNAVAILABLE', why);
  return new McpdError('UNAVAILABLE', `server ${spec.name} failed to start: ${why}`);
}

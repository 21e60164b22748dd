import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchContext, Launcher } from '../../../contract/model/downstream.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { specFingerprint } from '../../../contract/model/fingerprint.js';
import { noteChallenges } from '../oauth/challenge-notes.js';
import { StoredOAuthProvider } from '../../../contract/oauth/provider.js';
import { authFailure } from '../../../contract/oauth/sign-in-error.js';
import type { OAuthStore } from '../../../contract/oauth/token-store.js';
import { serverEnvironment } from './env.js';
import type { ListGuards } from './list-tools.js';
import { Reaper } from './reaper.js';
import { McpSession } from './session.js';
import { ProcessStdioTransport } from './stdio-transport.js';

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

export function createLauncher(opts: LauncherOptions = {}): ManagedLauncher {
  const reaper = opts.reaper === false ? undefined : new Reaper(opts.onEvent);
  const live = new Set<McpSession>();
  let down = false;

  async function launch(spec: ServerSpec, ctx: LaunchContext): Promise<McpSession> {
    if (down) throw new McpdError('UNAVAILABLE', `cannot start server ${spec.name}: the launcher is shutting down`);
    const graceMs = opts.graceMs ?? spec.drainTimeoutSeconds * 1000;
    let session: McpSession | undefined;
    const transport = makeTransport(spec, graceMs, (line) => session?.stderrLine(line));
    const client = new Client(opts.clientInfo ?? { name: 'mcpd', version: '0.1.0' }, {
      capabilities: (opts.clientCapabilities ?? {}) as ClientCapabilities,
    });
    // Protocol problems (lines that are not JSON-RPC, an oversized answer) would vanish in the SDK's
    // unset onerror: they go to the server's log lines, where the caller's logs show them.
    client.onerror = (err) => session?.stderrLine(`[mcpd] ${err.message}`);
    const onReq = opts.onServerRequest;
    if (onReq) {
      client.fallbackRequestHandler = async (req, extra) =>
        onReq(spec, ctx.instanceId, req.method, (req.params ?? {}) as JsonObject, extra.signal);
    }
    const listTimeoutMs = spec.callTimeoutSeconds * 1000;
    session = new McpSession({ serverName: spec.name, client, transport, listTimeoutMs, graceMs, guards: opts.listGuards });
    live.add(session);
    session.onClose(() => live.delete(session as McpSession));
    try {
      await client.connect(transport, { signal: ctx.signal, timeout: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });
    } catch (err) {
      // Ignored: the start already failed; that error is what the caller sees.
      await session.close(0).catch(() => {});
      live.delete(session);
      throw startError(spec, transport, err, ctx.signal);
    }
    return session;
  }

  function makeTransport(spec: ServerSpec, graceMs: number, onStderr: (line: string) => void): Transport {
    if (spec.transport === 'stdio') {
      const [command, ...args] = spec.cmd;
      if (!command) throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: stdio transport needs "cmd" (program and arguments)`);
      const env = serverEnvironment(spec.env, opts.baseEnv);
      return new ProcessStdioTransport({ serverName: spec.name, command, args, env, cwd: spec.cwd, graceMs, onStderr, reaper });
    }
    if (!spec.url) throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: ${spec.transport} transport needs "url"`);
    let url: URL;
    try {
      url = new URL(spec.url);
    } catch {
      throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: "${spec.url}" is not a valid URL`);
    }
    const requestInit = { headers: spec.headers };
    const fp = specFingerprint(spec);
    const authProvider = opts.oauth ? new StoredOAuthProvider(spec, fp, opts.oauth) : undefined;
    const fetchFn = opts.oauth ? noteChallenges(opts.oauth, fp) : undefined;
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

function startError(spec: ServerSpec, transport: Transport, err: unknown, signal?: AbortSignal): McpdError {
  if (err instanceof McpdError) return err;
  if (signal?.aborted) return new McpdError('CANCELLED', `start of server ${spec.name} was cancelled`);
  const auth = authFailure(spec.name, err);
  if (auth) return auth;
  let why = (err as Error)?.message ?? String(err);
  if (transport instanceof ProcessStdioTransport) {
    if (transport.exitInfo) why = `it exited (${transport.describeExit()}) before completing the MCP handshake`;
    const tail = transport.recentStderr();
    if (tail.length) why += `; last stderr lines:\n  ${tail.slice(-5).join('\n  ')}`;
  }
  if (why.startsWith('cannot start server')) return new McpdError('UNAVAILABLE', why);
  return new McpdError('UNAVAILABLE', `server ${spec.name} failed to start: ${why}`);
}

import {
  clientCapabilityOf,
  FORWARDED_CLIENT_METHODS,
  ClientRequestError,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_METHOD_NOT_FOUND,
  ROOTS_LIST_CHANGED,
  type ClientChannel,
  type ClientRequestsApi,
} from '../../contract/control/client-requests.js';
import type { CallerSession } from '../../contract/control/control.js';
import type { JsonObject } from '../../shared/json.js';
import type { ServerSpec } from '../../contract/model/spec.js';
import type { CoreLog } from './area-deps.js';
import { ABANDONED_CALL_KEY } from '../infra/scheduler/index.js';

export interface ClientRequestDeps {
  /** Routing keys (caller session ids) a request from this instance may belong to, best match first. */
  callersOf(instanceId: string): string[];
  /**
   * The call being served waits for its caller's answer: read-only calls may use its slot until the returned
   * function runs (decision 64), so other callers' reads do not starve behind an unanswered question.
   */
  lendSlot?(instanceId: string): () => void;
  /**
   * The server asked on behalf of a caller's call: its pool serves one call per instance from now on, and
   * the instance waits on the client until the returned function is called.
   */
  clientAsked(instanceId: string): () => void;
  /** A client notification to every running instance of these pools; returns how many got it. */
  notifyServers(fingerprints: string[], method: string, params: JsonObject): number;
  /** Pool fingerprints of the servers in the caller's current profile. */
  fingerprintsOf(caller: string): string[];
  log: CoreLog;
}

/** A gateway session that can answer server→client requests. */
export interface AttachedClient {
  session: CallerSession;
  channel: ClientChannel;
  clientName?: string;
  /** Undefined until the gateway reports what its client declared; the gateway then decides. */
  capabilities?: JsonObject;
}

/**
 * `ambiguous`: refused because the request may be one of several callers' — what an instance per call
 * resolves (decision 66); a refusal for want of a caller, or of a caller able to answer, is not.
 */
export type ClientPick = { ok: true; client: AttachedClient } | { ok: false; error: ClientRequestError; ambiguous: boolean };

/**
 * The routing rule (decision 20): a server→client request goes to the one caller session the instance is
 * serving — the only session with calls in flight there or, with none in flight, the only one bound to it.
 * A stdio server's request does not say which call it belongs to, so when several sessions qualify it is
 * refused: sending it to one of them could show one caller another's prompt and hand back the wrong answer.
 * A call that ended unanswered (cancelled, deadline, disconnect) leaves ABANDONED_CALL_KEY behind until the
 * server answers the ping sent after its cancel (decision 58): till then the server may still ask on the
 * call's behalf, and its caller is gone, so such a request goes to no one.
 * Capabilities are checked on the chosen session only.
 */
export function pickClient(
  keys: readonly string[],
  clients: ReadonlyMap<string, AttachedClient>,
  req: { server: string; instanceId: string; method: string },
): ClientPick {
  const what = `${req.method} from server ${req.server} (instance ${req.instanceId})`;
  const distinct = [...new Set(keys)];
  if (distinct.length === 0) {
    return fail(
      JSONRPC_INTERNAL_ERROR,
      `mcpd cannot forward ${what}: no caller request is in flight on that instance, and mcpd sends a server's request only to the MCP client whose request the server is serving`,
    );
  }
  if (distinct.includes(ABANDONED_CALL_KEY)) {
    return ambiguous(
      `mcpd cannot forward ${what}: a call on that instance just ended while the server was still working on it (cancelled, past its deadline, or its caller left), and the server has not yet answered the ping sent after its cancel, so the request may be that call's; mcpd refuses it rather than show one caller another's request. Requests sent after the server answers go to their callers again; ask again`,
    );
  }
  const [only] = distinct;
  if (distinct.length > 1) {
    return ambiguous(
      `mcpd cannot forward ${what}: more than one caller session has a call in flight on that instance, and the request does not say whose it is; mcpd now gives each call to this server an instance of its own, so the next call's requests reach its caller; call again`,
    );
  }
  const client = only === undefined ? undefined : clients.get(only);
  if (!client) {
    return fail(
      JSONRPC_INTERNAL_ERROR,
      `mcpd cannot forward ${what}: the caller being served has no MCP client connected to answer it (its gateway is gone, or it called over the gRPC API)`,
    );
  }
  const cap = clientCapabilityOf(req.method);
  if (cap && client.capabilities && client.capabilities[cap] === undefined) {
    return fail(
      JSONRPC_METHOD_NOT_FOUND,
      `mcpd cannot forward ${what}: the MCP client of caller "${client.session.caller}"${client.clientName ? ` (${client.clientName})` : ''} did not declare the "${cap}" capability`,
    );
  }
  return { ok: true, client };
}

function fail(code: number, message: string): ClientPick {
  return { ok: false, error: new ClientRequestError(code, message), ambiguous: false };
}

function ambiguous(message: string): ClientPick {
  return { ok: false, error: new ClientRequestError(JSONRPC_INTERNAL_ERROR, message), ambiguous: true };
}

/** A request forwarded to a client and not yet answered: withdrawn when the call it was asked for ends unanswered. */
interface OpenQuestion {
  instanceId: string;
  sessionId: string;
  withdraw: AbortController;
}

/** Routes downstream servers' requests (sampling, elicitation, roots) to the caller sessions they serve. */
export class ClientRequests implements ClientRequestsApi {
  private readonly clients = new Map<string, AttachedClient>();
  private readonly open = new Set<OpenQuestion>();

  constructor(private readonly deps: ClientRequestDeps) {}

  attach(session: CallerSession, channel: ClientChannel, clientName?: string): () => void {
    const entry: AttachedClient = { session, channel, clientName };
    this.clients.set(session.id, entry);
    return () => {
      if (this.clients.get(session.id) === entry) this.clients.delete(session.id);
    };
  }

  setCapabilities(sessionId: string, capabilities: JsonObject, clientName?: string): void {
    const c = this.clients.get(sessionId);
    if (!c) return;
    c.capabilities = capabilities;
    if (clientName) c.clientName = clientName;
  }

  rootsChanged(sessionId: string): void {
    const c = this.clients.get(sessionId);
    if (!c) return;
    const fps = this.deps.fingerprintsOf(c.session.caller);
    const n = this.deps.notifyServers(fps, ROOTS_LIST_CHANGED, {});
    this.deps.log('debug', 'roots changed; servers told', { caller: c.session.caller, session: sessionId, instances: n });
  }

  /**
   * A call of session `key` on the instance ended without the server's answer: the questions forwarded to
   * that session for the instance are withdrawn — cancelled toward the client, an error to the server —
   * since whoever would answer them is no longer waiting for the call they serve.
   */
  callAbandoned(instanceId: string, key: string): void {
    for (const q of this.open) {
      if (q.instanceId !== instanceId || q.sessionId !== key) continue;
      q.withdraw.abort(
        new ClientRequestError(
          JSONRPC_INTERNAL_ERROR,
          'mcpd withdrew the request: the call it was asked for ended before the client answered (cancelled, past its deadline, or its caller left)',
        ),
      );
    }
  }

  /** The launcher's onServerRequest: answers with the client's result or throws a ClientRequestError. */
  async handle(spec: ServerSpec, instanceId: string, method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    if (clientCapabilityOf(method) === undefined) {
      throw new ClientRequestError(
        JSONRPC_METHOD_NOT_FOUND,
        `mcpd does not forward "${method}" from server ${spec.name} to MCP clients (it forwards ${FORWARDED_CLIENT_METHODS.join(', ')})`,
      );
    }
    const keys = this.deps.callersOf(instanceId);
    const picked = pickClient(keys, this.clients, { server: spec.name, instanceId, method });
    // A request its caller can answer, or one that found several callers, tells that this server asks its
    // client: from now on each call gets an instance of its own, so the next request has one caller to go to
    // (decisions 20, 66). One that nobody could answer does not (decision 86): a roots/list sent as the
    // server starts, landing during a call from a client without `roots`, cut the pool to a call at a time.
    const answered = picked.ok || picked.ambiguous ? this.deps.clientAsked(instanceId) : () => {};
    if (!picked.ok) {
      answered();
      // With no caller request in flight (a server asking roots/list as it starts, for a listing) the
      // refusal is expected and the server copes: worth a line at info, not a warning on every cold start.
      const level = keys.length === 0 ? 'info' : 'warning';
      this.deps.log(level, 'server request refused', { server: spec.name, instance: instanceId, method, reason: picked.error.message });
      throw picked.error;
    }
    const { session } = picked.client;
    this.deps.log('debug', 'server request forwarded', {
      server: spec.name,
      instance: instanceId,
      method,
      caller: session.caller,
      session: session.id,
    });
    const q: OpenQuestion = { instanceId, sessionId: session.id, withdraw: new AbortController() };
    const both = signal ? AbortSignal.any([signal, q.withdraw.signal]) : q.withdraw.signal;
    this.open.add(q);
    const lent = this.deps.lendSlot?.(instanceId);
    try {
      return await picked.client.channel.request(method, params, { signal: both, timeoutMs: spec.callTimeoutSeconds * 1000 });
    } catch (e) {
      const withdrawn: unknown = q.withdraw.signal.reason;
      if (withdrawn instanceof ClientRequestError) {
        this.deps.log('info', 'server request withdrawn', {
          server: spec.name,
          instance: instanceId,
          method,
          caller: session.caller,
          session: session.id,
        });
        throw withdrawn;
      }
      if (e instanceof ClientRequestError) throw e;
      throw new ClientRequestError(
        JSONRPC_INTERNAL_ERROR,
        `forwarding ${method} to the MCP client of caller "${session.caller}" failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    } finally {
      lent?.();
      this.open.delete(q);
      answered();
    }
  }
}

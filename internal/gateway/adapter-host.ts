import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import type { SessionClient } from '../contract/session/session-client.js';
import { toJsonRpcError } from './error-map.js';
import type { AdapterContext, ForwardExtra, GatewayServer, MethodAdapter, SurfaceAdapter } from './adapter.js';
import { logsAdapter } from './adapters/logs.js';
import { promptsAdapter } from './adapters/prompts.js';
import { resourcesAdapter } from './adapters/resources.js';
import { toolsAdapter } from './adapters/tools.js';
import { clientRequestsAdapter } from './adapters/client-requests.js';
import { tasksAdapter } from './adapters/tasks.js';
import { CoreLink, type CoreLinkOptions } from './core-link.js';

export interface GatewayOptions {
  caller: string;
  socket: string;
  version: string;
  startCore?: CoreLinkOptions['startCore'];
  /** Opens the core Session (default: a connection of its own); see CoreLinkOptions.open. */
  openSession?: CoreLinkOptions['open'];
  /** How long a request waits for a core to (re)appear before failing. */
  coreWaitMs?: number;
  log: (msg: string) => void;
  /** The process's write batcher, shared by the core Session and the client's stdio. */
  batcher?: CoreLinkOptions['batcher'];
}

/** The gateway's surface adapters, one per slice of the MCP surface (adapters/). */
export function gatewayAdapters(): SurfaceAdapter[] {
  return [toolsAdapter(), resourcesAdapter(), promptsAdapter(), logsAdapter(), clientRequestsAdapter(), tasksAdapter()];
}

/** What the adapters declare, merged: the gateway's server capabilities. */
export function mergeCapabilities(adapters: SurfaceAdapter[]): ServerCapabilities {
  return Object.assign({}, ...adapters.map((a) => a.capabilities)) as ServerCapabilities;
}

/**
 * What every gateway session shares whatever serves its MCP side (the SDK's Server over HTTP, the stdio
 * dispatcher on stdio): the Session link to the core, the surface adapters registered on it, their method adapters, and
 * the forward of a request to the core.
 */
export class AdapterHost {
  readonly link: CoreLink;
  readonly adapters = new Map<string, MethodAdapter>();
  private readonly notificationHandlers = new Map<string, ((params: JsonObject) => void)[]>();
  private readonly connectHandlers: ((s: SessionClient, reconnect: boolean) => void)[] = [];

  constructor(
    private readonly opts: GatewayOptions,
    surface: SurfaceAdapter[],
    server: GatewayServer,
  ) {
    this.link = new CoreLink({
      socket: opts.socket,
      caller: opts.caller,
      startCore: opts.startCore,
      open: opts.openSession,
      batcher: opts.batcher,
      log: opts.log,
      onConnected: (s, reconnect) => this.onConnected(s, reconnect),
    });
    const ctx: AdapterContext = {
      server,
      caller: opts.caller,
      forward: (method, params, extra, token) => this.forward(method, params, extra, token),
      onCoreNotification: (method, handler) =>
        this.notificationHandlers.set(method, [...(this.notificationHandlers.get(method) ?? []), handler]),
      onConnected: (handler) => this.connectHandlers.push(handler),
      adapt: (method, adapter) => void this.adapters.set(method, adapter),
      log: opts.log,
    };
    for (const a of surface) a.register(ctx);
  }

  get coreWaitMs(): number {
    return this.opts.coreWaitMs ?? 15_000;
  }

  /** Sends one request to the core's Session method of the same name; failures come back as JSON-RPC errors. */
  async forward(method: string, params: JsonObject, extra: ForwardExtra, progressToken?: string | number): Promise<JsonValue> {
    try {
      const session = await this.link.session(this.coreWaitMs);
      let lastProgress: Promise<void> | undefined;
      const result = await session.request(method, params, {
        signal: extra.signal,
        onProgress:
          progressToken === undefined
            ? undefined
            : (p) => {
                lastProgress = extra
                  .sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken, progress: p.progress, total: p.total, message: p.message },
                  })
                  // Ignored: progress for a client that has gone is moot; the call's own answer reports the failure.
                  .catch(() => {});
              },
      });
      // Clients built on the SDK drop a progress notification that arrives in the same read as its
      // response (their notification handlers run a microtask late): flush it, then answer a turn later.
      if (lastProgress) {
        await lastProgress;
        await new Promise((r) => setImmediate(r));
      }
      return result;
    } catch (e) {
      throw toJsonRpcError(e);
    }
  }

  private onConnected(session: SessionClient, reconnect: boolean): void {
    session.onNotification((method, params) => {
      for (const h of this.notificationHandlers.get(method) ?? []) h(params);
    });
    for (const h of this.connectHandlers) h(session, reconnect);
  }
}

import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import type { SessionClient } from '../contract/session/session-client.js';
import { contextArea } from '../contract/context/context-listing.js';
import { toJsonRpcError } from '../contract/context/error-map.js';
import type { ForwardExtra, GatewayAdapter, GatewayArea, GatewayContext, GatewayServer } from '../contract/context/gateway-area.js';
import { logsArea } from './areas/logs.js';
import { promptsArea } from './areas/prompts.js';
import { resourcesArea } from './areas/resources.js';
import { toolsArea } from './areas/tools.js';
import { clientRequestsArea } from './areas/client-requests.js';
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
}

/** The gateway's areas, one per slice of the MCP surface (areas/). */
export function gatewayAreas(): GatewayArea[] {
  return [toolsArea(), resourcesArea(), promptsArea(), logsArea(), contextArea(), clientRequestsArea()];
}

/** What the areas declare, merged: the gateway's server capabilities. */
export function mergeCapabilities(areas: GatewayArea[]): ServerCapabilities {
  return Object.assign({}, ...areas.map((a) => a.capabilities)) as ServerCapabilities;
}

/**
 * What every gateway session shares whatever serves its MCP side (the SDK's Server over HTTP, the stdio
 * dispatcher on stdio): the Session link to the core, the areas registered on it, their adapters, and
 * the forward of a request to the core.
 */
export class AreaHost {
  readonly link: CoreLink;
  readonly adapters = new Map<string, GatewayAdapter>();
  private readonly notificationHandlers = new Map<string, ((params: JsonObject) => void)[]>();
  private readonly connectHandlers: ((s: SessionClient, reconnect: boolean) => void)[] = [];

  constructor(
    private readonly opts: GatewayOptions,
    areas: GatewayArea[],
    server: GatewayServer,
  ) {
    this.link = new CoreLink({
      socket: opts.socket,
      caller: opts.caller,
      startCore: opts.startCore,
      open: opts.openSession,
      log: opts.log,
      onConnected: (s, reconnect) => this.onConnected(s, reconnect),
    });
    const ctx: GatewayContext = {
      server,
      caller: opts.caller,
      forward: (method, params, extra, token) => this.forward(method, params, extra, token),
      onCoreNotification: (method, handler) =>
        this.notificationHandlers.set(method, [...(this.notificationHandlers.get(method) ?? []), handler]),
      onConnected: (handler) => this.connectHandlers.push(handler),
      adapt: (method, adapter) => void this.adapters.set(method, adapter),
      log: opts.log,
    };
    for (const a of areas) a.register(ctx);
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

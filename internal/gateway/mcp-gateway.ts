import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import type { SessionClient } from '../contract/session/session-client.js';
import { logsAdapter } from './adapters/logs.js';
import { promptsAdapter } from './adapters/prompts.js';
import { resourcesAdapter } from './adapters/resources.js';
import { toolsAdapter } from './adapters/tools.js';
import { clientRequestsAdapter } from './adapters/client-requests.js';
import { CoreLink, type CoreLinkOptions } from './core-link.js';
import { toJsonRpcError } from './error-map.js';
import type { ForwardExtra, MethodAdapter, SurfaceAdapter, AdapterContext } from './adapter.js';
import { registerAreaHandlers } from './gateway-areas.js';
import { AREAS } from '../contract/areas/all-areas.js';
import { FastToolCalls } from './fast-tool-calls.js';
import { StdioServerLineTransport } from './stdio-server-transport.js';
import { gatewayInstructions } from './early-initialize.js';

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

/**
 * The MCP server that a client spawns: answers initialize itself, then turns each MCP request into
 * a request on the Session stream to the core. Each slice of the MCP surface has its adapter in adapters/.
 */
export class Gateway {
  readonly server: Server;
  private readonly link: CoreLink;
  private readonly notificationHandlers = new Map<string, ((params: JsonObject) => void)[]>();
  private readonly connectHandlers: ((s: SessionClient, reconnect: boolean) => void)[] = [];

  constructor(private readonly opts: GatewayOptions) {
    const surface: SurfaceAdapter[] = [toolsAdapter(), resourcesAdapter(), promptsAdapter(), logsAdapter(), clientRequestsAdapter()];
    this.server = new Server(
      { name: 'mcpd', version: opts.version },
      { capabilities: mergeCapabilities(surface), instructions: gatewayInstructions(opts.caller) },
    );
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
      server: this.server,
      caller: opts.caller,
      forward: (method, params, extra, token) => this.forward(method, params, extra, token),
      onCoreNotification: (method, handler) =>
        this.notificationHandlers.set(method, [...(this.notificationHandlers.get(method) ?? []), handler]),
      onConnected: (handler) => this.connectHandlers.push(handler),
      adapt: (method, adapter) => void methodAdapters.set(method, adapter),
      log: opts.log,
    };
    const methodAdapters = new Map<string, MethodAdapter>();
    for (const a of surface) a.register(ctx);
    // Every method the control-plane areas declare for the gateway gets its handler here.
    registerAreaHandlers(this.server, AREAS, methodAdapters, (method, params, extra, token) => this.forward(method, params, extra, token));
  }

  async connect(transport: Transport): Promise<void> {
    if (transport instanceof StdioServerLineTransport) {
      const fast = new FastToolCalls({
        session: () => this.link.session(this.coreWaitMs),
        liveSession: () => this.link.live(),
        write: (b, role) => {
          transport.writeRaw(b, role);
        },
      });
      transport.intercept = (m) => fast.offer(m);
    }
    await this.server.connect(transport);
    if (transport instanceof StdioServerLineTransport) this.link.warm();
    else {
      // HTTP: a session holds a core link only once its client finished initializing, so a flood of
      // bare `initialize` requests costs the core nothing.
      const previous = this.server.oninitialized;
      this.server.oninitialized = () => {
        previous?.();
        this.link.warm();
      };
    }
  }

  private get coreWaitMs(): number {
    return this.opts.coreWaitMs ?? 15_000;
  }

  async close(): Promise<void> {
    this.link.close();
    await this.server.close();
  }

  private async forward(method: string, params: JsonObject, extra: ForwardExtra, progressToken?: string | number): Promise<JsonValue> {
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

function mergeCapabilities(adapters: SurfaceAdapter[]): ServerCapabilities {
  return Object.assign({}, ...adapters.map((a) => a.capabilities)) as ServerCapabilities;
}

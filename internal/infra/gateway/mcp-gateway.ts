import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../../domain/json.js';
import type { SessionClient } from '../rpc/session-client.js';
import { CoreLink } from './core-link.js';
import { toJsonRpcError } from './error-map.js';

export interface GatewayOptions {
  caller: string;
  socket: string;
  version: string;
  startCore?: () => void;
  /** How long a request waits for a core to (re)appear before failing. */
  coreWaitMs?: number;
  log: (msg: string) => void;
}

/**
 * The MCP server that a client spawns: answers initialize itself, then turns each MCP request into
 * a request on the Session stream to the core.
 */
export class Gateway {
  readonly server: Server;
  private readonly link: CoreLink;
  /** ETag of the last tool list this client was given; list_changed is sent only when it moves. */
  private servedToolsEtag?: string;

  constructor(private readonly opts: GatewayOptions) {
    this.server = new Server(
      { name: 'mcpd', version: opts.version },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: `Tools of the mcpd profile for caller "${opts.caller}".`,
      },
    );
    this.link = new CoreLink({
      socket: opts.socket,
      caller: opts.caller,
      startCore: opts.startCore,
      log: opts.log,
      onConnected: (s, reconnect) => this.onConnected(s, reconnect),
    });
    this.registerHandlers();
  }

  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
    this.link.warm();
  }

  async close(): Promise<void> {
    this.link.close();
    await this.server.close();
  }

  private async forward(method: string, params: JsonObject, extra: { signal: AbortSignal; sendNotification: (n: ServerNotification) => Promise<void> }, progressToken?: string | number): Promise<JsonValue> {
    try {
      const session = await this.link.session(this.opts.coreWaitMs ?? 15_000);
      return await session.request(method, params, {
        signal: extra.signal,
        onProgress:
          progressToken === undefined
            ? undefined
            : (p) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: p.progress, total: p.total, message: p.message } }).catch(() => {}),
      });
    } catch (e) {
      throw toJsonRpcError(e);
    }
  }

  private registerHandlers(): void {
    this.server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
      const result = (await this.forward('tools/list', { ...(req.params?.cursor ? { cursor: req.params.cursor } : {}) }, extra)) as JsonObject;
      this.servedToolsEtag = etagOf(result);
      return result as never;
    });
    this.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const params: JsonObject = { name: req.params.name, arguments: (req.params.arguments ?? {}) as JsonObject };
      const result = await this.forward('tools/call', params, extra, req.params._meta?.progressToken);
      return result as never;
    });
  }

  private onConnected(session: SessionClient, reconnect: boolean): void {
    session.onNotification((method, params) => {
      if (method === 'notifications/tools/list_changed') {
        // A client that never listed has nothing stale; one that holds this very list needs no nudge.
        if (this.servedToolsEtag === undefined || etagOf(params) === this.servedToolsEtag) return;
        void this.server.sendToolListChanged().catch(() => {});
      }
    });
    if (reconnect) void this.resync(session);
  }

  /** After a core restart the list may differ from what the client holds: compare, and say so once. */
  private async resync(session: SessionClient): Promise<void> {
    if (this.servedToolsEtag === undefined) return;
    try {
      const page = (await session.request('tools/list', {})) as JsonObject;
      if (etagOf(page) !== this.servedToolsEtag) await this.server.sendToolListChanged();
    } catch (e) {
      this.opts.log(`re-sync after reconnect failed: ${(e as Error).message}`);
    }
  }
}

function etagOf(o: JsonObject): string | undefined {
  const meta = o._meta;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const e = meta['mcpd/etag'];
    return typeof e === 'string' ? e : undefined;
  }
  return undefined;
}

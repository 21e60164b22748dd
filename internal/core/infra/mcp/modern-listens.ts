import type { Client as ModernClient, McpSubscription } from '@modelcontextprotocol/client';
import type { JsonObject } from '../../../shared/json.js';
import { isJsonObject } from '../../../shared/json.js';

/** How long a server may take to acknowledge a listen stream before the core gives up on it. */
const LISTEN_ACK_MS = 10_000;

/**
 * What the core hears from a 2026-07-28 server outside its calls. That era has no session to push
 * notifications on: a client opens `subscriptions/listen` streams instead. The core keeps one stream for
 * list changes (the kinds the server declares `listChanged` for) and one per subscribed resource URI,
 * which is how the core's own `resources/subscribe` / `resources/unsubscribe` reach such a server. The
 * notifications arrive through the SDK client's notification handlers, the same path as a 2025 server's.
 */
export class ModernListens {
  private readonly resources = new Map<string, Promise<McpSubscription>>();

  constructor(private readonly client: ModernClient) {}

  /** Opens the list-changes stream, if the server declares any list that changes. */
  async start(capabilities: JsonObject): Promise<void> {
    const changes = (kind: string) => {
      const c = capabilities[kind];
      return isJsonObject(c) && c.listChanged === true;
    };
    const filter = {
      ...(changes('tools') ? { toolsListChanged: true } : {}),
      ...(changes('prompts') ? { promptsListChanged: true } : {}),
      ...(changes('resources') ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length > 0) await this.client.listen(filter, { timeout: LISTEN_ACK_MS });
  }

  /** `resources/subscribe` of the 2025 model: a listen stream for that URI (one however often asked). */
  async subscribe(uri: string): Promise<JsonObject> {
    let open = this.resources.get(uri);
    if (!open) {
      open = this.client.listen({ resourceSubscriptions: [uri] }, { timeout: LISTEN_ACK_MS });
      this.resources.set(uri, open);
      // A stream that could not open is forgotten, so the next subscribe tries again.
      open.catch(() => this.resources.delete(uri));
    }
    await open;
    return {};
  }

  /** `resources/unsubscribe`: closes that URI's stream. */
  async unsubscribe(uri: string): Promise<JsonObject> {
    const open = this.resources.get(uri);
    this.resources.delete(uri);
    if (open) await (await open).close();
    return {};
  }

  /** Routes the 2025 subscribe methods (removed in 2026-07-28) to listen streams; undefined for the rest. */
  route(method: string, params: JsonObject): Promise<JsonObject> | undefined {
    const uri = typeof params.uri === 'string' ? params.uri : undefined;
    if (uri === undefined) return undefined;
    if (method === 'resources/subscribe') return this.subscribe(uri);
    if (method === 'resources/unsubscribe') return this.unsubscribe(uri);
    return undefined;
  }
}

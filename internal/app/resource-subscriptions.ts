import { McpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { CoreLog } from './area-deps.js';
import type { PoolPort } from './pool-port.js';
import { UpdateSink } from './resource-update-sink.js';

interface Entry {
  key: string;
  fingerprint: string;
  server: string;
  uri: string;
  sinks: Set<UpdateSink>;
  /** Settles when the downstream resources/subscribe has been answered. */
  ready: Promise<void>;
}

export interface SubscriptionInfo {
  uri: string;
  server: string;
  subscribers: number;
}

/**
 * Routing key of a URI's downstream subscription. For `stateful` pools it binds subscribe and the
 * later unsubscribe to one instance (and the binding holds that instance against idle reaping for
 * the session TTL); other strategies route it like any request. Updates are accepted from every
 * instance of the owning pool, so where the subscription landed does not matter for delivery.
 */
export function subscriptionRoutingKey(uri: string): string {
  return `mcpd/resource-subscription:${uri}`;
}

/**
 * Shared downstream subscriptions: one `resources/subscribe` per (server spec, URI) however many
 * callers subscribe; every `notifications/resources/updated` fans out to all of them; the last one
 * to leave sends `resources/unsubscribe`.
 */
export class ResourceSubscriptions {
  private readonly entries = new Map<string, Entry>();
  /** Unsubscribes in flight: a new subscribe to the same key waits for it, keeping the order downstream. */
  private readonly leaving = new Map<string, Promise<void>>();

  constructor(
    private readonly pools: PoolPort,
    private readonly log: CoreLog,
  ) {}

  async add(fingerprint: string, server: string, uri: string, signal: AbortSignal): Promise<UpdateSink> {
    if (signal.aborted) throw new McpdError('CANCELLED', `subscribing to ${uri} was cancelled`);
    const key = `${fingerprint}\u0000${uri}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { key, fingerprint, server, uri, sinks: new Set(), ready: Promise.resolve() };
      entry.ready = this.subscribeDownstream(entry);
      this.entries.set(key, entry);
    }
    const e = entry;
    const onAbort = (): void => sink.end();
    const sink: UpdateSink = new UpdateSink(() => {
      signal.removeEventListener('abort', onAbort);
      this.leave(e, sink);
    });
    e.sinks.add(sink);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await e.ready;
    } catch (err) {
      sink.end();
      throw err;
    }
    return sink;
  }

  /** A downstream `notifications/resources/updated` from any instance of the pool. */
  updated(fingerprint: string, params: JsonObject): void {
    const uri = params.uri;
    if (typeof uri !== 'string') return;
    const entry = this.entries.get(`${fingerprint}\u0000${uri}`);
    if (!entry) return;
    for (const s of entry.sinks) s.push(params);
  }

  /** Live downstream subscriptions and how many callers share each (status and tests). */
  list(): SubscriptionInfo[] {
    return [...this.entries.values()].map((e) => ({ uri: e.uri, server: e.server, subscribers: e.sinks.size }));
  }

  private async subscribeDownstream(e: Entry): Promise<void> {
    await this.leaving.get(e.key);
    try {
      await this.pools.request(e.fingerprint, 'resources/subscribe', { uri: e.uri }, { routingKey: subscriptionRoutingKey(e.uri) });
    } catch (err) {
      if (this.entries.get(e.key) === e) this.entries.delete(e.key);
      throw err;
    }
    this.log('info', 'resource subscription opened downstream', { server: e.server, uri: e.uri, fingerprint: e.fingerprint });
  }

  private leave(e: Entry, sink: UpdateSink): void {
    e.sinks.delete(sink);
    if (e.sinks.size > 0 || this.entries.get(e.key) !== e) return;
    this.entries.delete(e.key);
    const done = e.ready
      .then(
        () => this.unsubscribeDownstream(e),
        () => {}, // never subscribed: nothing to undo
      )
      .finally(() => {
        if (this.leaving.get(e.key) === done) this.leaving.delete(e.key);
      });
    this.leaving.set(e.key, done);
  }

  private async unsubscribeDownstream(e: Entry): Promise<void> {
    try {
      await this.pools.request(e.fingerprint, 'resources/unsubscribe', { uri: e.uri }, { routingKey: subscriptionRoutingKey(e.uri) });
      this.log('info', 'resource subscription closed downstream', { server: e.server, uri: e.uri, fingerprint: e.fingerprint });
    } catch (err) {
      this.log('warning', 'resources/unsubscribe failed downstream; the server may keep sending updates, which are dropped', {
        server: e.server,
        uri: e.uri,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

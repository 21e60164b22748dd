import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { CoreLog } from './area-deps.js';
import type { PoolPort } from './pool-port.js';
import { UpdateSink } from './resource-update-sink.js';
import { SubscriptionRenewal, type Renewable, type SubscriptionOptions } from './subscription-renewal.js';

export { renewDelayMs, type SubscriptionOptions } from './subscription-renewal.js';

interface Entry extends Renewable {
  key: string;
  /** The pin was taken (and must be given back exactly once). */
  pinned: boolean;
}

export interface SubscriptionInfo {
  uri: string;
  server: string;
  subscribers: number;
}

const PREFIX = 'mcpd/resource-subscription:';

/**
 * Routing key of a URI's downstream subscription. The hub pins it on the pool (any strategy), so
 * subscribe, the later unsubscribe and a re-subscribe after loss all land on the instance that holds
 * the subscription, and that instance is not reaped for idleness while the subscription lives.
 */
export function subscriptionRoutingKey(uri: string): string {
  return `${PREFIX}${uri}`;
}

/**
 * The one hub of downstream resource subscriptions, shared by resources/subscribe callers and the
 * context channels: one `resources/subscribe` per (server spec, URI) however many hold it; every
 * `notifications/resources/updated` fans out to them; the last to leave sends `resources/unsubscribe`.
 * The subscription's instance is pinned; when it ends, the hub subscribes again on a new one.
 */
export class ResourceSubscriptions {
  private readonly entries = new Map<string, Entry>();
  /** Unsubscribes in flight: a new subscribe to the same key waits for it, keeping the order downstream. */
  private readonly leaving = new Map<string, Promise<void>>();
  private readonly renewal: SubscriptionRenewal<Entry>;
  /** Set when the core stops: its servers are about to go, so telling them to unsubscribe is noise. */
  private stopping = false;

  constructor(
    private readonly pools: PoolPort,
    private readonly log: CoreLog,
    opts: SubscriptionOptions = {},
  ) {
    this.renewal = new SubscriptionRenewal<Entry>({ current: (e) => this.current(e), subscribe: (e) => this.subscribe(e) }, log, opts);
    pools.onNotification((fp, _instance, method, params) => {
      if (method === 'notifications/resources/updated') this.updated(fp, params);
    });
    pools.onPinLost?.((fp, key) => this.pinLost(fp, key));
  }

  async add(fingerprint: string, server: string, uri: string, signal: AbortSignal): Promise<UpdateSink> {
    if (signal.aborted) throw new McpdError('CANCELLED', `subscribing to ${uri} was cancelled`);
    const e = this.entries.get(entryKey(fingerprint, uri)) ?? this.open(fingerprint, server, uri);
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
    const entry = this.entries.get(entryKey(fingerprint, uri));
    if (!entry) return;
    for (const s of entry.sinks) s.push(params);
  }

  /** Live downstream subscriptions and how many holders share each (status and tests). */
  list(): SubscriptionInfo[] {
    return [...this.entries.values()].map((e) => ({ uri: e.uri, server: e.server, subscribers: e.sinks.size }));
  }

  private open(fingerprint: string, server: string, uri: string): Entry {
    const key = entryKey(fingerprint, uri);
    const e: Entry = {
      key,
      fingerprint,
      server,
      uri,
      sinks: new Set(),
      ready: Promise.resolve(),
      held: false,
      losses: 0,
      gone: new AbortController(),
      pinned: false,
    };
    this.pools.pin?.(fingerprint, subscriptionRoutingKey(uri)); // an unknown pool throws here, before anything is kept
    e.pinned = this.pools.pin !== undefined;
    this.entries.set(key, e);
    e.ready = this.subscribeDownstream(e);
    return e;
  }

  private current(e: Entry): boolean {
    return this.entries.get(e.key) === e;
  }

  private subscribe(e: Entry): Promise<JsonObject> {
    return this.pools.request(e.fingerprint, 'resources/subscribe', { uri: e.uri }, { routingKey: subscriptionRoutingKey(e.uri) });
  }

  private async subscribeDownstream(e: Entry): Promise<void> {
    await this.leaving.get(e.key);
    const losses = e.losses;
    try {
      await this.subscribe(e);
    } catch (err) {
      if (this.current(e)) this.entries.delete(e.key);
      this.release(e);
      throw err;
    }
    // Lost while the answer was on its way: the re-subscribe loop (waiting on `ready`) takes over.
    e.held = e.losses === losses;
    this.log('info', 'resource subscription opened downstream', { server: e.server, uri: e.uri, fingerprint: e.fingerprint });
  }

  /** The pool's instance that held a subscription ended: subscribe again on a new one. */
  private pinLost(fingerprint: string, routingKey: string): void {
    if (!routingKey.startsWith(PREFIX)) return;
    const e = this.entries.get(entryKey(fingerprint, routingKey.slice(PREFIX.length)));
    if (!e) return;
    this.renewal.lost(e);
  }

  private leave(e: Entry, sink: UpdateSink): void {
    e.sinks.delete(sink);
    if (e.sinks.size > 0 || !this.current(e)) return;
    this.entries.delete(e.key);
    e.gone.abort();
    const renewing = e.renewing;
    const done = Promise.allSettled([e.ready, renewing])
      .then(async ([first]) => {
        // Never subscribed, or the instance that held it is gone: nothing to undo downstream.
        if (first.status === 'fulfilled' && e.held) await this.unsubscribeDownstream(e);
      })
      .finally(() => {
        this.release(e);
        if (this.leaving.get(e.key) === done) this.leaving.delete(e.key);
      });
    this.leaving.set(e.key, done);
  }

  private release(e: Entry): void {
    if (!e.pinned) return;
    e.pinned = false;
    this.pools.unpin?.(e.fingerprint, subscriptionRoutingKey(e.uri));
  }

  /** The core is shutting down: leave downstream subscriptions to die with their servers. */
  shutdown(): void {
    this.stopping = true;
  }

  private async unsubscribeDownstream(e: Entry): Promise<void> {
    if (this.stopping) return;
    try {
      await this.pools.request(e.fingerprint, 'resources/unsubscribe', { uri: e.uri }, { routingKey: subscriptionRoutingKey(e.uri) });
      this.log('info', 'resource subscription closed downstream', { server: e.server, uri: e.uri, fingerprint: e.fingerprint });
    } catch (err) {
      this.log('warning', 'resources/unsubscribe failed downstream; the server may keep sending updates, which are dropped', {
        server: e.server,
        uri: e.uri,
        error: errorText(err),
      });
    }
  }
}

function entryKey(fingerprint: string, uri: string): string {
  return `${fingerprint}\u0000${uri}`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

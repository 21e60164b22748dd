import { backoffDelayMs } from '../../shared/backoff.js';
import { isMcpdError } from '../../shared/errors.js';
import { cappedTimeout } from '../../shared/timer-limit.js';
import type { CoreLog } from './area-deps.js';
import type { UpdateSink } from './resource-update-sink.js';

export interface SubscriptionOptions {
  /** Delay before the n-th re-subscribe attempt after a pin loss (n from 0). */
  renewDelayMs?: (attempt: number) => number;
  /** Waits `ms` or until `signal` aborts (tests inject a fake clock here). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The first attempt at once, then about 1 s, 2 s, 4 s … capped at 30 s: a failing pool is never
 * hammered, and subscriptions lost together (one pool died) renew spread out.
 */
export function renewDelayMs(attempt: number, random?: () => number): number {
  return backoffDelayMs(attempt, { baseMs: 1000, maxMs: 30_000, jitter: 0.2 }, random);
}

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = cappedTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What renewal reads and updates of one downstream subscription. */
export interface Renewable {
  fingerprint: string;
  server: string;
  uri: string;
  sinks: Set<UpdateSink>;
  /** Settles when the first downstream resources/subscribe has been answered. */
  ready: Promise<void>;
  /** A subscribe was answered since the last pin loss: a server instance holds the subscription. */
  held: boolean;
  /** Pin losses so far: a subscribe answered while this moved may sit on an instance already gone. */
  losses: number;
  /** The re-subscribe loop after a pin loss, while it runs. */
  renewing?: Promise<void>;
  /** Aborted when the subscription is dropped: ends a backoff wait at once. */
  readonly gone: AbortController;
}

/** The hub's side of renewal. */
export interface RenewalHub<E extends Renewable> {
  /** The subscription is still the hub's (not dropped, not replaced). */
  current(e: E): boolean;
  /** Sends `resources/subscribe` on the subscription's pinned routing key. */
  subscribe(e: E): Promise<unknown>;
}

/** After the instance that held a subscription ended: subscribe again, at once and then with backoff, until it holds or ends. */
export class SubscriptionRenewal<E extends Renewable> {
  private readonly delayOf: (attempt: number) => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(
    private readonly hub: RenewalHub<E>,
    private readonly log: CoreLog,
    opts: SubscriptionOptions = {},
  ) {
    this.delayOf = opts.renewDelayMs ?? renewDelayMs;
    this.sleep = opts.sleep ?? realSleep;
  }

  /** The pool's instance that held `e` ended. */
  lost(e: E): void {
    e.losses++;
    e.held = false;
    this.log('info', 'resource subscription lost its server instance; subscribing again', {
      server: e.server,
      uri: e.uri,
      fingerprint: e.fingerprint,
    });
    // A loop already running sees `losses` move and goes round again.
    e.renewing ??= this.renew(e);
  }

  private async renew(e: E): Promise<void> {
    try {
      // Ignored: only waits for the first subscribe to settle; its failure was reported to its own caller.
      await e.ready.catch(() => {});
      for (let attempt = 0; this.hub.current(e); attempt++) {
        await this.sleep(this.delayOf(attempt), e.gone.signal);
        if (!this.hub.current(e)) return;
        const losses = e.losses;
        try {
          await this.hub.subscribe(e);
        } catch (err) {
          if (this.poolGone(e, err)) return;
          this.log('warning', 'resource subscription could not be made again; retrying with backoff', {
            server: e.server,
            uri: e.uri,
            attempt: attempt + 1,
            error: err instanceof Error ? err.message : String(err),
          });
          continue;
        }
        if (e.losses === losses) {
          e.held = true;
          this.log('info', 'resource subscription re-established downstream', { server: e.server, uri: e.uri, fingerprint: e.fingerprint });
          return;
        }
      }
    } finally {
      e.renewing = undefined;
    }
  }

  /** The pool itself is gone (its spec was removed): nothing can hold the subscription; end it. */
  private poolGone(e: E, err: unknown): boolean {
    if (!isMcpdError(err) || err.reason !== 'NOT_FOUND' || !this.hub.current(e)) return !this.hub.current(e);
    this.log('warning', 'resource subscription ended: its server is no longer in any profile', {
      server: e.server,
      uri: e.uri,
      error: err.message,
    });
    for (const s of [...e.sinks]) s.end();
    return true;
  }
}

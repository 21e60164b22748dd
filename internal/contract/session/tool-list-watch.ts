import type { ResourceSnapshot } from '../control/control-areas.js';
import { contextChannelsOf, type ContextChannels } from '../control/context-channels.js';

/**
 * The etag of the tool list a gateway's client sees. That list holds the Finder's tool
 * (`mcpd_finder`) exactly when the caller's servers list dpe:// resources, so the tool snapshot's
 * etag alone would not move when only that changed — e.g. a reload adding mcpd-docs, which has no
 * tools of its own — and the client would keep a stale list.
 */
export function clientToolListEtag(toolEtag: string, channels: ContextChannels): string {
  return channels.finder ? `${toolEtag}+finder` : toolEtag;
}

/**
 * A caller's tool watch joined with its resource watch: yields `{etag}` (as `clientToolListEtag`)
 * whenever the tool snapshot or the Finder channel moved, latest wins. Starts once both watches have
 * given their first (loaded) value; ends when either ends or on `return()`, which ends both.
 */
export class ClientToolListWatch implements AsyncIterableIterator<{ etag: string }> {
  private toolEtag: string | undefined;
  private channels: ContextChannels | undefined;
  private last: string | undefined;
  private pending: string | undefined;
  private waiting: ((r: IteratorResult<{ etag: string }>) => void) | undefined;
  private done = false;

  constructor(
    private readonly tools: AsyncIterableIterator<{ etag: string }>,
    private readonly resources: AsyncIterableIterator<ResourceSnapshot>,
  ) {
    // Fire-and-forget: each pump ends this watch when its source ends or fails; nothing to report.
    void this.pump(tools, (s) => (this.toolEtag = s.etag));
    void this.pump(resources, (s) => (this.channels = channelsOf(s))); // likewise: pump() never rejects
  }

  next(): Promise<IteratorResult<{ etag: string }>> {
    if (this.pending !== undefined) {
      const etag = this.pending;
      this.pending = undefined;
      return Promise.resolve({ value: { etag }, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<{ etag: string }>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<{ etag: string }> {
    return this;
  }

  private async pump<T>(source: AsyncIterableIterator<T>, apply: (v: T) => void): Promise<void> {
    try {
      for await (const v of source) {
        if (this.done) break;
        apply(v);
        this.changed();
      }
    } catch {
      // A failing source ends the watch like a closing one: the session then stops forwarding.
    } finally {
      this.end();
    }
  }

  private changed(): void {
    if (this.toolEtag === undefined || this.channels === undefined) return;
    const etag = clientToolListEtag(this.toolEtag, this.channels);
    if (etag === this.last) return;
    this.last = etag;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting({ value: { etag }, done: false });
    else this.pending = etag;
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    // Fire-and-forget: ending a watch settles at once and cannot fail in a way worth reporting.
    void this.tools.return?.();
    void this.resources.return?.(); // likewise
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }
}

function channelsOf(s: ResourceSnapshot): ContextChannels {
  return contextChannelsOf([...s.resources.map((r) => r.uri), ...s.templates.map((t) => t.uriTemplate)]);
}

/**
 * Per-caller change channels of the desktop or the finder: newest-wins streams of {etag, reason}.
 * Each publish computes the caller's current view; when several computations overlap only the
 * newest one publishes, so a slow, older view can never follow a newer one.
 */
import type { ContextChange, Subscription } from '../../contract/control/control-areas.js';
import { LatestWins } from '../domain/aggregator/newest-wins.js';
import type { CoreLog } from './area-deps.js';

/** What a computation of the caller's view yields. */
export interface ViewState {
  etag: string;
  /** Servers with content in display order: a tool call that reorders them is a change. */
  order: string[];
  /** Fingerprints of the caller's profile: a reload that changes them is a change. */
  fingerprints: string;
}

interface Channel {
  lw: LatestWins<ContextChange>;
  seq: number;
  state?: ViewState;
}

export class CallerChannels {
  private readonly byCaller = new Map<string, Channel>();

  constructor(
    private readonly kind: 'desktop' | 'finder',
    private readonly compute: (caller: string) => Promise<ViewState>,
    private readonly log: CoreLog,
    /** Told whenever a watcher comes or goes (what is held for watchers follows it). */
    private readonly onWatchers: () => void = () => undefined,
  ) {}

  /** Subscribes; the first item is the current view (computed now if nobody watched before). */
  subscribe(caller: string): Subscription<ContextChange> {
    let ch = this.byCaller.get(caller);
    if (!ch) {
      const created: Channel = { lw: new LatestWins<ContextChange>((n) => this.counted(caller, created, n)), seq: 0 };
      ch = created;
      this.byCaller.set(caller, ch);
    }
    const sub = ch.lw.subscribe();
    // publish() logs a failed computation itself and never rejects; the subscriber gets the result when it lands.
    if (ch.lw.current() === undefined) void this.publish(caller, 'initial');
    return sub;
  }

  /**
   * A caller's last watcher left: its channel goes, so a watcher that comes back starts from a view
   * computed afresh (nothing kept it current meanwhile).
   */
  private counted(caller: string, ch: Channel, count: number): void {
    if (count === 0 && this.byCaller.get(caller) === ch) {
      this.byCaller.delete(caller);
      ch.lw.close();
    }
    this.onWatchers();
  }

  hasWatchers(): boolean {
    for (const ch of this.byCaller.values()) if (ch.lw.subscriberCount > 0) return true;
    return false;
  }

  /** The last view of `caller` when someone watches it. */
  watchedState(caller: string): ViewState | undefined {
    const ch = this.byCaller.get(caller);
    return ch && ch.lw.subscriberCount > 0 ? ch.state : undefined;
  }

  /** Callers someone is watching, with what their last view was. */
  watched(): { caller: string; state?: ViewState }[] {
    const out: { caller: string; state?: ViewState }[] = [];
    for (const [caller, ch] of this.byCaller) if (ch.lw.subscriberCount > 0) out.push({ caller, state: ch.state });
    return out;
  }

  /**
   * Recomputes the caller's view and publishes {etag, reason}. With `onlyIfChanged` nothing is
   * published when the etag is the one watchers already have.
   */
  async publish(caller: string, reason: string, onlyIfChanged = false): Promise<void> {
    const ch = this.byCaller.get(caller);
    if (!ch) return;
    const mine = ++ch.seq;
    let state: ViewState;
    try {
      state = await this.compute(caller);
    } catch (e) {
      this.log('warning', `context.${this.kind}_refresh_failed`, { caller, reason, error: e instanceof Error ? e.message : String(e) });
      return;
    }
    if (mine !== ch.seq) return; // a newer computation is on its way
    const same = ch.state !== undefined && ch.state.etag === state.etag;
    ch.state = state;
    if (onlyIfChanged && same) return;
    ch.lw.publish({ etag: state.etag, reason });
  }

  close(): void {
    for (const ch of this.byCaller.values()) ch.lw.close();
    this.byCaller.clear();
  }
}

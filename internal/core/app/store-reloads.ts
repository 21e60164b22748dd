import type { ReloadOutcome } from '../../contract/control/control.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import type { ReloadProgress } from './reload-retry.js';
import type { ToolService } from './tool-service.js';

/** What follows the store when it changes, besides the pools and the tool indexes. */
export interface ReloadFollowers {
  resources: { applyStore(): void };
  prompts: { applyStore(): void };
  /** Callers moved to their (possibly new) profile. */
  remapCallers(): void;
  /** Caller views re-read; returns the callers with open watches, whose lists are loaded at once. */
  refreshViews(): string[];
  /** runtime.yaml `smcp:` of the new store. */
  applySmcp(): void;
  profileOf(caller: string): string;
  publishStatus(): void;
}

/**
 * Applying a changed store (reload RPC or file watcher) to pools, indexes and caller views — and the
 * bookkeeping that lets a call which raced an application wait for it (ReloadProgress).
 */
export class StoreReloads implements ReloadProgress {
  /** The store application under way (or the last one, settled), and how many have begun. */
  private applying: Promise<void> = Promise.resolve();
  private applyGeneration = 0;
  /** Applications begun and not finished: until one is, the tool index can still name pools it removed. */
  private appliesInFlight = 0;

  constructor(
    private readonly pools: PoolPort,
    private readonly store: StoreState,
    private readonly tools: ToolService,
    private readonly followers: ReloadFollowers,
  ) {}

  get generation(): number {
    return this.applyGeneration;
  }

  get settled(): boolean {
    return this.appliesInFlight === 0;
  }

  applied(): Promise<void> {
    return this.applying;
  }

  async reload(): Promise<ReloadOutcome> {
    const r = await this.store.reload();
    // An explicit reload is also how a user says "try the suspended servers again".
    if (r.applied) await this.apply({ resumeSuspended: true });
    this.followers.publishStatus();
    return r;
  }

  /** After the store changed (reload RPC or file watcher): pools, indexes, caller views. */
  apply(opts: { resumeSuspended?: boolean } = {}): Promise<void> {
    this.applyGeneration++;
    this.appliesInFlight++;
    const run = this.applyNow(opts).finally(() => this.appliesInFlight--);
    // A call that lost its pool to this reload waits for it (and for any earlier one still running,
    // as the file watcher does not wait for one to end) before resolving its tool again. A rejection is
    // dropped here: the reload's own caller gets it through `run`; waiters only need it settled.
    const earlier = this.applying;
    this.applying = run.then(
      () => earlier,
      () => earlier,
    );
    return run;
  }

  private async applyNow(opts: { resumeSuspended?: boolean }): Promise<void> {
    const f = this.followers;
    // Reconcile swaps the pools at once and then waits for the removed ones to stop (seconds under
    // load, and it can fail). The indexes follow the swap without that wait: until they do, a call
    // resolves its tool to a pool this reload already removed.
    const stopped = this.pools.reconcile(this.store.specs(), opts);
    this.tools.applyStore(this.store.current);
    f.resources.applyStore();
    f.prompts.applyStore();
    f.remapCallers();
    // Fire-and-forget: the tool cache's loads never reject: a failed listing is recorded and logged.
    for (const caller of f.refreshViews()) void this.tools.ensureLoaded(f.profileOf(caller));
    f.applySmcp();
    await stopped;
  }
}

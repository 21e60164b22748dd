import type { ReloadOutcome } from '../../contract/control/control.js';
import { formatIssue, type ConfigIssue } from '../../shared/errors.js';
import type { ProfileStore } from '../../contract/model/profile.js';
import type { PoolStatus } from '../../contract/model/runtime.js';
import { loadStore, redactSpec, useStoreSecrets } from '../../store/index.js';
import { diffStores, specsByFingerprint } from '../infra/catalog/diff-stores.js';
import type { SpecRef } from './pool-port.js';

/**
 * The running configuration. A reload that fails validation keeps the running store and records
 * why, so status and logs can show it.
 */
export class StoreState {
  lastIssues: ConfigIssue[] = [];
  /** Servers of the running store left out because a value is missing (they are disabled, the rest runs). */
  unresolved: ConfigIssue[] = [];
  private readonly adoptListeners = new Set<() => void>();

  private constructor(
    public current: ProfileStore,
    private readonly env: NodeJS.ProcessEnv,
    private readonly envDescription: string | undefined,
    private readonly log: (level: 'info' | 'warning' | 'error', event: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** Loads (scaffolding an empty store); throws with every issue when it is invalid. */
  static async open(dir: string, env: NodeJS.ProcessEnv, log: StoreState['log'], envDescription?: string): Promise<StoreState> {
    const r = await loadStore(dir, { env, envDescription, scaffold: true });
    if (!r.ok) throw new Error(`configuration in ${dir} is invalid:\n${r.issues.map(formatIssue).join('\n')}`);
    useStoreSecrets(r.store);
    for (const w of r.warnings) log('warning', 'config warning', { issue: formatIssue(w), storeFile: w.file });
    const state = new StoreState(r.store, env, envDescription, log);
    state.noteUnresolved(r.unresolved);
    return state;
  }

  specs(): Map<string, SpecRef> {
    return specsByFingerprint(this.current);
  }

  async reload(): Promise<ReloadOutcome> {
    const r = await loadStore(this.current.dir, { env: this.env, envDescription: this.envDescription });
    if (!r.ok) {
      this.lastIssues = r.issues;
      this.log('error', 'reload rejected; the running configuration stays in force', { issues: r.issues.map(formatIssue) });
      return { applied: false, issues: r.issues.map(formatIssue), poolsAdded: 0, poolsRemoved: 0, profilesChanged: [] };
    }
    return this.adopt(r.store, r.unresolved);
  }

  /** What status shows as configuration problems: a rejected edit's, then servers left out. */
  issuesNow(): ConfigIssue[] {
    return [...this.lastIssues, ...this.unresolved];
  }

  private noteUnresolved(unresolved: ConfigIssue[]): void {
    this.unresolved = unresolved;
    for (const u of unresolved) this.log('warning', 'server left out until its value is set', { issue: formatIssue(u), storeFile: u.file });
  }

  /** Hears every store taken into use (a reload, an edit the watcher applied); returns how to stop. */
  onAdopt(listener: () => void): () => void {
    this.adoptListeners.add(listener);
    return () => this.adoptListeners.delete(listener);
  }

  /** Takes a store that a watcher already loaded successfully. */
  adopt(next: ProfileStore, unresolved: ConfigIssue[] = []): ReloadOutcome {
    const d = diffStores(this.current, next);
    this.current = next;
    for (const l of this.adoptListeners) l();
    useStoreSecrets(next);
    this.lastIssues = [];
    this.noteUnresolved(unresolved);
    this.log('info', 'configuration applied', {
      added: d.addedFingerprints.length,
      removed: d.removedFingerprints.length,
      profiles: d.changedProfiles,
    });
    return {
      applied: true,
      issues: [],
      poolsAdded: d.addedFingerprints.length,
      poolsRemoved: d.removedFingerprints.length,
      profilesChanged: d.changedProfiles,
    };
  }

  reject(issues: ConfigIssue[]): void {
    this.lastIssues = issues;
    this.log('error', 'configuration edit rejected; the running configuration stays in force', { issues: issues.map(formatIssue) });
  }

  /** Secrets never leave the core through status. */
  redactPools(pools: PoolStatus[]): PoolStatus[] {
    return pools.map((p) => ({ ...p, spec: redactSpec(p.spec) }));
  }
}

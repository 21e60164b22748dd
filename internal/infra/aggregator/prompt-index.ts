import type { PromptEntry, PromptSnapshot } from '../../domain/control-areas.js';
import { McpdError } from '../../domain/errors.js';
import { DEFAULT_RUNTIME, type Profile } from '../../domain/profile.js';
import { ListingIndex } from './listing-index.js';
import type { Page } from './paginate.js';
import { buildPromptSnapshot, type PromptsByServer } from './prompt-snapshot.js';
import { closestNames } from './suggest.js';

export interface PromptIndexOptions {
  profile: Profile;
  fingerprintOf: (serverName: string) => string;
  retentionSeconds?: number;
  maxSnapshots?: number;
  now?: () => number;
}

export const PROMPTS_LISTING = 'prompts';

/** One profile's prompt listing: snapshots, pinned cursors, watchers, exposed-name lookup. */
export class PromptIndex {
  private profile: Profile;
  private fingerprintOf: (serverName: string) => string;
  private byServer: PromptsByServer = new Map();
  private readonly listing: ListingIndex<PromptSnapshot, PromptEntry>;
  private byName = new Map<string, PromptEntry>();

  constructor(opts: PromptIndexOptions) {
    this.profile = opts.profile;
    this.fingerprintOf = opts.fingerprintOf;
    const initial = buildPromptSnapshot(this.profile, this.fingerprintOf, this.byServer);
    this.listing = new ListingIndex<PromptSnapshot, PromptEntry>((s) => s.prompts, {
      kind: PROMPTS_LISTING,
      initial,
      retentionSeconds: opts.retentionSeconds ?? DEFAULT_RUNTIME.snapshotRetentionSeconds,
      maxSnapshots: opts.maxSnapshots,
      now: opts.now,
    });
    this.index(initial);
  }

  update(byServer: PromptsByServer): boolean {
    this.byServer = byServer;
    return this.rebuild();
  }

  reconfigure(profile: Profile, fingerprintOf: (serverName: string) => string = this.fingerprintOf): boolean {
    this.profile = profile;
    this.fingerprintOf = fingerprintOf;
    return this.rebuild();
  }

  snapshot(): PromptSnapshot {
    return this.listing.current();
  }

  list(cursor: string | undefined, pageSize: number): Page<PromptEntry> {
    return this.listing.list(cursor, pageSize);
  }

  watch(lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<PromptSnapshot> {
    return this.listing.watch(lastEtag, signal);
  }

  resolve(exposedName: string): PromptEntry {
    const entry = this.byName.get(exposedName);
    if (entry) return entry;
    const near = closestNames(exposedName, this.byName.keys());
    const hint = near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '; list the prompts to see the exposed names';
    throw new McpdError('NOT_FOUND', `no prompt named "${exposedName}" in profile "${this.profile.name}"${hint}`);
  }

  close(): void {
    this.listing.close();
  }

  private rebuild(): boolean {
    const next = buildPromptSnapshot(this.profile, this.fingerprintOf, this.byServer);
    const changed = this.listing.offer(next);
    this.index(next);
    return changed;
  }

  private index(s: PromptSnapshot): void {
    this.byName = new Map(s.prompts.map((p) => [p.name, p]));
  }
}

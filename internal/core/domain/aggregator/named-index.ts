import { McpdError } from '../../../shared/errors.js';
import { DEFAULT_RUNTIME, type Profile } from '../../../contract/model/profile.js';
import { ListingIndex } from './listing-index.js';
import type { Page } from './paginate.js';
import { closestNames } from '../../../contract/model/did-you-mean.js';

export interface NamedIndexOptions {
  profile: Profile;
  /** Pool key of a server in the profile. */
  fingerprintOf: (serverName: string) => string;
  retentionSeconds?: number;
  maxSnapshots?: number;
  now?: () => number;
}

/** What differs between the tool and the prompt index: how a snapshot is built and named. */
export interface NamedIndexKind<In, S, T> {
  /** Binds cursors to this listing ("tools", "prompts"). */
  listing: string;
  /** For messages: "tool", "prompt". */
  noun: string;
  empty: In;
  build(profile: Profile, fingerprintOf: (serverName: string) => string, input: In): S;
  items(snapshot: S): readonly T[];
  /** Everything callable by name, when more than is listed (tool search mode); default: the items. */
  callable?(snapshot: S): readonly T[];
}

/**
 * One profile's listing of namespaced items (tools, prompts): snapshots, pinned cursors, watchers and
 * exposed-name lookup, rebuilt from the servers' current lists.
 */
export class NamedIndex<In, S extends { etag: string }, T extends { name: string }> {
  private profile: Profile;
  private fingerprintOf: (serverName: string) => string;
  private input: In;
  private readonly listing: ListingIndex<S, T>;
  private byName = new Map<string, T>();

  constructor(
    private readonly kind: NamedIndexKind<In, S, T>,
    opts: NamedIndexOptions,
  ) {
    this.profile = opts.profile;
    this.fingerprintOf = opts.fingerprintOf;
    this.input = kind.empty;
    const initial = this.build();
    this.listing = new ListingIndex<S, T>(kind.items, {
      kind: kind.listing,
      initial,
      retentionSeconds: opts.retentionSeconds ?? DEFAULT_RUNTIME.snapshotRetentionSeconds,
      maxSnapshots: opts.maxSnapshots,
      now: opts.now,
    });
    this.index(initial);
  }

  /** Rebuilds from the servers' current lists; publishes only when the etag changed. */
  update(input: In): boolean {
    this.input = input;
    return this.rebuild();
  }

  /** After a profile reload: same lists, new filters, aliases, namespace or fingerprints. */
  reconfigure(profile: Profile, fingerprintOf: (serverName: string) => string = this.fingerprintOf): boolean {
    this.profile = profile;
    this.fingerprintOf = fingerprintOf;
    return this.rebuild();
  }

  snapshot(): S {
    return this.listing.current();
  }

  /** A retained snapshot by etag (the one a cursor's page came from), if still kept. */
  snapshotAt(etag: string): S | undefined {
    return this.listing.snapshotAt(etag);
  }

  list(cursor: string | undefined, pageSize: number): Page<T> {
    return this.listing.list(cursor, pageSize);
  }

  watch(lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<S> {
    return this.listing.watch(lastEtag, signal);
  }

  get watcherCount(): number {
    return this.listing.watcherCount;
  }

  /** The entry behind an exposed name in the current snapshot, if there is one. */
  find(exposedName: string): T | undefined {
    return this.byName.get(exposedName);
  }

  /** The entry behind an exposed name in the current snapshot. */
  resolve(exposedName: string): T {
    const entry = this.byName.get(exposedName);
    if (entry) return entry;
    const near = closestNames(exposedName, this.byName.keys());
    const hint =
      near.length > 0
        ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?`
        : `; list the ${this.kind.noun}s to see the exposed names`;
    throw new McpdError('NOT_FOUND', `no ${this.kind.noun} named "${exposedName}" in profile "${this.profile.name}"${hint}`);
  }

  close(): void {
    this.listing.close();
  }

  private build(): S {
    return this.kind.build(this.profile, this.fingerprintOf, this.input);
  }

  private rebuild(): boolean {
    const next = this.build();
    const changed = this.listing.offer(next);
    this.index(next);
    return changed;
  }

  private index(s: S): void {
    const listed = this.kind.items(s);
    const callable = this.kind.callable?.(s);
    this.byName = new Map((callable ? [...callable, ...listed] : listed).map((t) => [t.name, t]));
  }
}

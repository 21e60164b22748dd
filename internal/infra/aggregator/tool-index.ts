import { McpdError } from '../../domain/errors.js';
import { DEFAULT_RUNTIME } from '../../domain/profile.js';
import type { Profile } from '../../domain/profile.js';
import type { DownstreamTool, ToolEntry, ToolSnapshot } from '../../domain/tool.js';
import { ListingIndex } from './listing-index.js';
import type { Page } from './paginate.js';
import { closestNames } from './suggest.js';
import { buildToolSnapshot } from './tool-snapshot.js';

export type ToolsByServer = ReadonlyMap<string, readonly DownstreamTool[]>;

export interface ProfileIndexOptions {
  profile: Profile;
  /** Pool key of a server in the profile. */
  fingerprintOf: (serverName: string) => string;
  retentionSeconds?: number;
  maxSnapshots?: number;
  now?: () => number;
}

export const TOOLS_LISTING = 'tools';

/** One profile's tool listing: current snapshot, cursors over recent ones, watchers, name lookup. */
export class ProfileIndex {
  private profile: Profile;
  private fingerprintOf: (serverName: string) => string;
  private toolsByServer: ToolsByServer = new Map();
  private readonly listing: ListingIndex<ToolSnapshot, ToolEntry>;
  private byName = new Map<string, ToolEntry>();

  constructor(opts: ProfileIndexOptions) {
    this.profile = opts.profile;
    this.fingerprintOf = opts.fingerprintOf;
    const initial = this.build();
    this.listing = new ListingIndex<ToolSnapshot, ToolEntry>((s) => s.tools, {
      kind: TOOLS_LISTING,
      initial,
      retentionSeconds: opts.retentionSeconds ?? DEFAULT_RUNTIME.snapshotRetentionSeconds,
      maxSnapshots: opts.maxSnapshots,
      now: opts.now,
    });
    this.index(initial);
  }

  /** Rebuilds from the servers' current tool lists; publishes only when the etag changed. */
  update(toolsByServer: ToolsByServer): boolean {
    this.toolsByServer = toolsByServer;
    return this.rebuild();
  }

  /** After a profile reload: same tool lists, new filters, aliases, namespace or fingerprints. */
  reconfigure(profile: Profile, fingerprintOf: (serverName: string) => string = this.fingerprintOf): boolean {
    this.profile = profile;
    this.fingerprintOf = fingerprintOf;
    return this.rebuild();
  }

  snapshot(): ToolSnapshot {
    return this.listing.current();
  }

  /** The snapshot a page came from (`page.etag`), while it is kept; its collisions match that page. */
  snapshotAt(etag: string): ToolSnapshot | undefined {
    return this.listing.snapshotAt(etag);
  }

  list(cursor: string | undefined, pageSize: number): Page<ToolEntry> {
    return this.listing.list(cursor, pageSize);
  }

  watch(lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<ToolSnapshot> {
    return this.listing.watch(lastEtag, signal);
  }

  get watcherCount(): number {
    return this.listing.watcherCount;
  }

  /** The entry behind an exposed name in the current snapshot. */
  resolve(exposedName: string): ToolEntry {
    const entry = this.byName.get(exposedName);
    if (entry) return entry;
    const near = closestNames(exposedName, this.byName.keys());
    const hint = near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '; list the tools to see the exposed names';
    throw new McpdError('NOT_FOUND', `no tool named "${exposedName}" in profile "${this.profile.name}"${hint}`);
  }

  close(): void {
    this.listing.close();
  }

  private build(): ToolSnapshot {
    return buildToolSnapshot(this.profile, this.fingerprintOf, this.toolsByServer);
  }

  private rebuild(): boolean {
    const next = this.build();
    const changed = this.listing.offer(next);
    this.index(next);
    return changed;
  }

  private index(s: ToolSnapshot): void {
    this.byName = new Map(s.tools.map((t) => [t.name, t]));
  }
}

import type { ResourceEntry, ResourceSnapshot, ResourceTemplateEntry } from '../../../contract/control/control-areas.js';
import { compareNames } from '../../../contract/model/naming.js';
import { DEFAULT_RUNTIME, type Profile } from '../../../contract/model/profile.js';
import { ListingIndex } from './listing-index.js';
import type { Page } from './paginate.js';
import { buildResourceSnapshot, type ResourcesByServer } from './resource-snapshot.js';
import { literalPrefixLength, matchesUriTemplate } from './uri-template.js';

export interface ResourceIndexOptions {
  profile: Profile;
  fingerprintOf: (serverName: string) => string;
  retentionSeconds?: number;
  maxSnapshots?: number;
  now?: () => number;
}

/** Where a URI goes: the owning server and how it was found. */
export interface ResourceRoute {
  server: string;
  fingerprint: string;
  via: 'resource' | 'template' | 'dpe-host';
  /** The listed URI or template that matched. */
  match: string;
}

const RESOURCES_LISTING = 'resources';
const TEMPLATES_LISTING = 'resource-templates';

const DPE_HOST = /^dpe:\/\/([^/?#]*)/i;

/** One profile's resources and templates: snapshots, pinned cursors for both lists, watchers, routing by URI. */
export class ResourceIndex {
  private profile: Profile;
  private fingerprintOf: (serverName: string) => string;
  private byServer: ResourcesByServer = new Map();
  private readonly resources: ListingIndex<ResourceSnapshot, ResourceEntry>;
  private readonly templates: ListingIndex<ResourceSnapshot, ResourceTemplateEntry>;
  private byUri = new Map<string, ResourceEntry>();
  private templateOrder: ResourceTemplateEntry[] = [];

  constructor(opts: ResourceIndexOptions) {
    this.profile = opts.profile;
    this.fingerprintOf = opts.fingerprintOf;
    const initial = buildResourceSnapshot(this.profile, this.byServer);
    const common = {
      initial,
      retentionSeconds: opts.retentionSeconds ?? DEFAULT_RUNTIME.snapshotRetentionSeconds,
      maxSnapshots: opts.maxSnapshots,
      now: opts.now,
    };
    this.resources = new ListingIndex<ResourceSnapshot, ResourceEntry>((s) => s.resources, { ...common, kind: RESOURCES_LISTING });
    this.templates = new ListingIndex<ResourceSnapshot, ResourceTemplateEntry>((s) => s.templates, { ...common, kind: TEMPLATES_LISTING });
    this.index(initial);
  }

  /** Rebuilds from the servers' current listings; true when the etag changed (watchers were told). */
  update(byServer: ResourcesByServer): boolean {
    this.byServer = byServer;
    return this.rebuild();
  }

  reconfigure(profile: Profile, fingerprintOf: (serverName: string) => string = this.fingerprintOf): boolean {
    this.profile = profile;
    this.fingerprintOf = fingerprintOf;
    return this.rebuild();
  }

  snapshot(): ResourceSnapshot {
    return this.resources.current();
  }

  listResources(cursor: string | undefined, pageSize: number): Page<ResourceEntry> {
    return this.resources.list(cursor, pageSize);
  }

  listTemplates(cursor: string | undefined, pageSize: number): Page<ResourceTemplateEntry> {
    return this.templates.list(cursor, pageSize);
  }

  watch(lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<ResourceSnapshot> {
    return this.resources.watch(lastEtag, signal);
  }

  /** Exact listed URI first; else the most specific template (longest literal prefix) that matches. */
  route(uri: string): ResourceRoute | undefined {
    const exact = this.byUri.get(uri);
    if (exact) return this.routeTo(exact.server, 'resource', exact.uri);
    const t = this.templateOrder.find((e) => matchesUriTemplate(e.uriTemplate, uri));
    return t ? this.routeTo(t.server, 'template', t.uriTemplate) : undefined;
  }

  /** The server whose listed templates include exactly this one (completion `ref/resource`). */
  routeTemplate(uriTemplate: string): ResourceRoute | undefined {
    const t = this.templateOrder.find((e) => e.uriTemplate === uriTemplate);
    return t ? this.routeTo(t.server, 'template', t.uriTemplate) : undefined;
  }

  /** The first server (by name) that lists a `dpe://<host>…` resource or template; hosts compare case-insensitively. */
  routeDpeHost(host: string): ResourceRoute | undefined {
    // Exact, like everywhere else: the host is an MCP server name, and those are case-sensitive (docs/finder.md).
    const want = host;
    const hostOf = (s: string) => DPE_HOST.exec(s)?.[1];
    const snap = this.snapshot();
    const hits = [
      ...snap.resources.filter((e) => hostOf(e.uri) === want).map((e) => [e.server, e.uri] as const),
      ...snap.templates.filter((e) => hostOf(e.uriTemplate) === want).map((e) => [e.server, e.uriTemplate] as const),
    ].sort((a, b) => compareNames(a[0], b[0]));
    const [first] = hits;
    return first ? this.routeTo(first[0], 'dpe-host', first[1]) : undefined;
  }

  close(): void {
    this.resources.close();
    this.templates.close();
  }

  private routeTo(server: string, via: ResourceRoute['via'], match: string): ResourceRoute {
    return { server, fingerprint: this.fingerprintOf(server), via, match };
  }

  private rebuild(): boolean {
    const next = buildResourceSnapshot(this.profile, this.byServer);
    this.templates.offer(next);
    const changed = this.resources.offer(next);
    this.index(next);
    return changed;
  }

  private index(s: ResourceSnapshot): void {
    this.byUri = new Map(s.resources.map((e) => [e.uri, e]));
    this.templateOrder = [...s.templates].sort(
      (a, b) => literalPrefixLength(b.uriTemplate) - literalPrefixLength(a.uriTemplate) || compareNames(a.uriTemplate, b.uriTemplate),
    );
  }
}

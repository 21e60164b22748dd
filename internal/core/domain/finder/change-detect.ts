/**
 * Finder change detection (guide "变更检测"), mirroring the desktop: per server, the set of
 * dpe:// URIs last seen. A list_changed that does not change the set is not a finder update;
 * a resource-updated for a dpe:// URI always is.
 */
export class FinderChangeDetector {
  private readonly byServer = new Map<string, Set<string>>();

  /** Records the current resource list of `server`; true when its dpe:// URI set changed. */
  replace(server: string, uris: Iterable<string>): boolean {
    const next = new Set<string>();
    for (const u of uris) if (isDpe(u)) next.add(u);
    const prev = this.byServer.get(server) ?? new Set<string>();
    this.byServer.set(server, next);
    return !sameSet(prev, next);
  }

  /** A server went away; true when it had dpe:// documents. */
  removeServer(server: string): boolean {
    const prev = this.byServer.get(server);
    this.byServer.delete(server);
    return prev !== undefined && prev.size > 0;
  }

  /** notifications/resources/updated: only dpe:// URIs concern the Finder. */
  onUpdated(uri: string): boolean {
    return isDpe(uri);
  }

  uris(server: string): ReadonlySet<string> {
    return this.byServer.get(server) ?? new Set<string>();
  }
}

function isDpe(uri: string): boolean {
  return uri.slice(0, 6).toLowerCase() === 'dpe://';
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

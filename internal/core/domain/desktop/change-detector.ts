/**
 * Desktop change detection (spec desktop-window-resources.md, "变化检测"): decides, per downstream
 * notification, whether the desktop must be refreshed. Pure state: the cached set of window URIs
 * per server. The caller does the I/O (listing resources, emitting `update_desktop`).
 */
import type { JsonObject, JsonValue } from '../../../shared/json.js';
import { isWindowUri } from '../../../contract/desktop/window-uri.js';

/** Only servers that declare `capabilities.resources.subscribe: true` take part in the desktop. */
export function supportsResourceSubscribe(caps: JsonObject | undefined | null): boolean {
  const resources: JsonValue | undefined = caps?.resources;
  return typeof resources === 'object' && resources !== null && !Array.isArray(resources) && resources.subscribe === true;
}

export class DesktopChangeDetector {
  private readonly cache = new Map<string, Set<string>>();

  /**
   * After `notifications/resources/list_changed`: `uris` is the server's full current resource
   * list. Only valid `window://` URIs count; others are ignored. Returns true when the set of
   * window URIs differs from the cached one (a server seen for the first time starts from the
   * empty set, so its first windows are a change). A server without `resources.subscribe` never
   * signals, and any cache it had is dropped so that regaining the capability starts afresh.
   */
  onListChanged(server: string, uris: Iterable<string>, caps: JsonObject | undefined | null): boolean {
    if (!supportsResourceSubscribe(caps)) {
      this.cache.delete(server);
      return false;
    }
    const next = new Set<string>();
    for (const u of uris) if (typeof u === 'string' && isWindowUri(u)) next.add(u);
    const prev = this.cache.get(server) ?? new Set<string>();
    this.cache.set(server, next);
    return !sameSet(prev, next);
  }

  /**
   * After `notifications/resources/updated`: true at once for a valid `window://` URI of a server
   * with `resources.subscribe` (no set comparison, for latency); false for anything else.
   */
  onUpdated(server: string, uri: string, caps: JsonObject | undefined | null): boolean {
    void server; // kept in the signature so callers need not special-case; the cache is not consulted
    return supportsResourceSubscribe(caps) && typeof uri === 'string' && isWindowUri(uri);
  }

  /**
   * The server went away (session closed, removed from the profile). Returns true when it had
   * window URIs cached, i.e. its windows just left the desktop and a refresh is due.
   */
  forget(server: string): boolean {
    const had = this.cache.get(server);
    this.cache.delete(server);
    return had !== undefined && had.size > 0;
  }

  /** The cached window URIs of a server (empty when unknown). */
  windowUris(server: string): ReadonlySet<string> {
    return new Set(this.cache.get(server) ?? []);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

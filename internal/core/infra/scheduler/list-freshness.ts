import type { JsonObject } from '../../../shared/json.js';
import { isJsonObject } from '../../../shared/json.js';

/** The lists a 2026-07-28 server puts caching hints on, which the core keeps in its metadata cache. */
const CACHED_LISTS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'] as const;
export type CachedList = (typeof CACHED_LISTS)[number];

/** The capability whose `listChanged` says the server tells when the list changes. */
const CAPABILITY: Record<CachedList, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
};

/** The era whose list results carry `ttlMs` / `cacheScope` (the caching page of that specification). */
const HINTED_ERA = '2026-07-28';

/** What the rule needs to know of the session that answered. */
export interface AnsweringSession {
  readonly protocolVersion?: string;
  readonly capabilities: JsonObject;
  /** The server's list_changed notifications reach the core (a 2026 server: its listen stream was acknowledged). */
  readonly hearsListChanges?: boolean;
}

function isCachedList(method: string): method is CachedList {
  return (CACHED_LISTS as readonly string[]).includes(method);
}

/**
 * Until when a list page received at `receivedAt` is fresh; undefined = until the server says it changed
 * (how every 2025-11-25 list is kept). For a 2026-07-28 server:
 * - `ttlMs` > 0: fresh for that long, whatever else; a list_changed still ends it early;
 * - `ttlMs` 0 (the SDK's default), absent or invalid: "immediately stale" unless a change notification
 *   covers freshness — the server declares `listChanged` for the list and acknowledged the core's listen
 *   stream — then kept until it says the list changed, as the caching page's "Interaction with
 *   Notifications" allows; otherwise stale at once, so the next listing re-lists it.
 */
export function freshUntil(method: CachedList, page: JsonObject, session: AnsweringSession, receivedAt: number): number | undefined {
  if (session.protocolVersion !== HINTED_ERA) return undefined;
  const ttl = page.ttlMs;
  // The spec: a negative or absent TTL counts as 0; a non-integer is no valid TTL either.
  if (typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0) return receivedAt + ttl;
  return notifiesChanges(method, session) ? undefined : receivedAt;
}

function notifiesChanges(method: CachedList, session: AnsweringSession): boolean {
  const cap = session.capabilities[CAPABILITY[method]];
  return session.hearsListChanges === true && isJsonObject(cap) && cap.listChanged === true;
}

/** The earliest of several lists' times left (undefined when none has a TTL): an answer drawing on them all is as fresh as that. */
export function earliestFresh(times: Iterable<number | undefined>): number | undefined {
  let min: number | undefined;
  for (const t of times) if (t !== undefined && (min === undefined || t < min)) min = t;
  return min;
}

/**
 * How fresh each of a pool's cached lists is, from the hints on the pages the core last listed. A list
 * is as fresh as its least fresh page (each page carries its own TTL); the first page of a listing
 * starts its freshness over.
 */
export class ListFreshness {
  /** Lists with an end of freshness; a list not here is fresh until the server says it changed. */
  private readonly until = new Map<CachedList, number>();

  /** A page of a listing arrived (any method: only the cached lists are kept). */
  page(method: string, params: JsonObject, page: JsonObject, session: AnsweringSession, receivedAt: number): void {
    if (!isCachedList(method)) return;
    const until = freshUntil(method, page, session, receivedAt);
    const before = params.cursor === undefined ? undefined : this.until.get(method);
    const next = until === undefined ? before : before === undefined ? until : Math.min(before, until);
    if (next === undefined) this.until.delete(method);
    else this.until.set(method, next);
  }

  /** The list's TTL has run out (fresh while now < received + ttlMs). */
  stale(method: CachedList, now: number): boolean {
    const until = this.until.get(method);
    return until !== undefined && now >= until;
  }

  /** Milliseconds until the list goes stale (0 once it is); undefined = fresh until the server says it changed. */
  freshForMs(method: CachedList, now: number): number | undefined {
    const until = this.until.get(method);
    return until === undefined ? undefined : Math.max(0, until - now);
  }
}

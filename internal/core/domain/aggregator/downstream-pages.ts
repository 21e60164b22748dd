import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';

interface PageGuards {
  maxPages: number;
  maxItems: number;
}

const DEFAULT_PAGE_GUARDS: PageGuards = { maxPages: 100, maxItems: 10_000 };

export type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

/**
 * Follows a downstream list's `nextCursor` through every page (`resources/list`, `prompts/list` …),
 * collecting the objects under `field`. Loops (a cursor seen twice) and runaway sizes stop with a
 * clear error instead of hanging the listing.
 */
export async function listAllPages(
  server: string,
  method: string,
  field: string,
  fetchPage: PageFetcher,
  guards = DEFAULT_PAGE_GUARDS,
): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > guards.maxPages)
      throw bad(server, `returned more than ${guards.maxPages} pages for ${method}; listing stopped (its pagination may loop)`);
    const result = await fetchPage(cursor);
    const list = result[field];
    if (!Array.isArray(list)) throw bad(server, `answered ${method} page ${page} without a "${field}" array`);
    list.forEach((item, i) => {
      if (!item || typeof item !== 'object' || Array.isArray(item))
        throw bad(server, `sent a non-object at position ${i} of ${method} page ${page}`);
      items.push(item);
    });
    if (items.length > guards.maxItems) throw bad(server, `lists more than ${guards.maxItems} items in ${method}; listing stopped`);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return items;
    if (typeof next !== 'string') throw bad(server, `sent a non-string nextCursor on ${method} page ${page}`);
    if (seen.has(next))
      throw bad(server, `repeated ${method} cursor "${next.slice(0, 80)}" on page ${page}: its pagination loops; listing stopped`);
    seen.add(next);
    cursor = next;
  }
}

function bad(server: string, what: string): McpdError {
  return new McpdError('DOWNSTREAM_ERROR', `server ${server} ${what}`);
}

import type { JsonObject } from '../../../shared/json.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { McpdError } from '../../../shared/errors.js';

export interface ListGuards {
  maxPages: number;
  maxTools: number;
}

export const DEFAULT_LIST_GUARDS: ListGuards = { maxPages: 100, maxTools: 10_000 };

type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

/** Follows `nextCursor` through every page, refusing loops and runaway sizes with a clear error. */
export async function listAllTools(server: string, fetchPage: PageFetcher, guards = DEFAULT_LIST_GUARDS): Promise<DownstreamTool[]> {
  const tools: DownstreamTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > guards.maxPages) {
      throw bad(server, `returned more than ${guards.maxPages} pages of tools; listing stopped (the server's pagination may loop)`);
    }
    const result = await fetchPage(cursor);
    const list = result.tools;
    if (!Array.isArray(list)) throw bad(server, `answered tools/list page ${page} without a "tools" array`);
    list.forEach((t, i) => {
      if (!t || typeof t !== 'object' || Array.isArray(t) || typeof t.name !== 'string' || !t.name) {
        throw bad(server, `sent a tool without a name in tools/list page ${page}, position ${i}`);
      }
      tools.push({ name: t.name, definition: t });
    });
    if (tools.length > guards.maxTools) throw bad(server, `declares more than ${guards.maxTools} tools; listing stopped`);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return tools;
    if (typeof next !== 'string') throw bad(server, `sent a non-string nextCursor on tools/list page ${page}`);
    if (seen.has(next)) {
      throw bad(server, `repeated tools/list cursor "${next.slice(0, 80)}" on page ${page}: its pagination loops; listing stopped`);
    }
    seen.add(next);
    cursor = next;
  }
}

function bad(server: string, what: string): McpdError {
  return new McpdError('DOWNSTREAM_ERROR', `server ${server} ${what}`);
}

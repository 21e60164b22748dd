import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ToolSearchSettings } from '../../contract/model/profile.js';
import { ToolSearchIndex, type SearchDoc } from '../domain/tool-search.js';
import type { ToolEntry, ToolSnapshot } from '../../contract/model/tool.js';
import { CALL_TOOL, SEARCH_MODE_SERVER, SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';
import { must } from '../../shared/must.js';

export interface CallTarget {
  name: string;
  arguments: JsonObject;
}

/** A tool error the model can read and act on, rather than a protocol error it never sees. */
export function toolError(text: string): JsonObject {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function isSearchModeTool(entry: ToolEntry): boolean {
  return entry.server === SEARCH_MODE_SERVER && entry.fingerprint === '' && (entry.name === SEARCH_TOOL || entry.name === CALL_TOOL);
}

function searchDoc(t: ToolEntry): SearchDoc {
  const d = t.definition;
  const schema = d.inputSchema as { properties?: Record<string, unknown> } | undefined;
  const annotations = d.annotations as { title?: unknown } | undefined;
  const title = typeof d.title === 'string' ? d.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
  return {
    // The downstream name and the server name too: "github" should find github__create_issue even when aliased.
    name: `${t.name} ${t.downstreamName} ${t.server}`,
    title,
    description: typeof d.description === 'string' ? d.description : undefined,
    params: schema?.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [],
  };
}

/** The core's answers to the search tool and the call tool of tool search mode. */
export class ToolSearchCalls {
  /** One index per catalog (snapshots are immutable, so the catalog array identifies its content). */
  private readonly indexes = new WeakMap<readonly ToolEntry[], ToolSearchIndex>();

  indexFor(catalog: readonly ToolEntry[]): ToolSearchIndex {
    let idx = this.indexes.get(catalog);
    if (!idx) {
      idx = new ToolSearchIndex(catalog.map(searchDoc));
      this.indexes.set(catalog, idx);
    }
    return idx;
  }

  /** The best matches, full definitions, as JSON text (and structured content for clients that read it). */
  search(snapshot: ToolSnapshot, settings: ToolSearchSettings, args: JsonObject, visible?: (tool: ToolEntry) => boolean): JsonObject {
    const query = args.query;
    if (typeof query !== 'string' || query.trim() === '')
      return toolError(`${SEARCH_TOOL} needs "query": a few words describing the task, e.g. {"query": "create an issue"}`);
    const limit = args.limit ?? settings.maxResults;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 50)
      return toolError(`${SEARCH_TOOL} "limit" must be a whole number from 1 to 50, got ${JSON.stringify(args.limit)}`);
    const catalog = snapshot.catalog ?? snapshot.tools;
    // Hits index the catalog the search index was built from. A tool the door hides from the caller is no hit:
    // the index is shared by the profile's callers, so it is searched whole and the hidden ones left out.
    const hits = visible
      ? this.indexFor(catalog)
          .search(query, catalog.length)
          .filter((h) => visible(must(catalog[h.index], 'a search hit')))
          .slice(0, limit)
      : this.indexFor(catalog).search(query, limit);
    const tools = hits.map((h) => must(catalog[h.index], 'a search hit').definition as JsonValue);
    const total = visible ? catalog.filter(visible).length : catalog.length;
    const body: JsonObject = { query, total, tools };
    const hint = tools.length ? `call one with ${CALL_TOOL} {"name": …, "arguments": {…}}` : 'no tool matched; try other words';
    return { content: [{ type: 'text', text: `${JSON.stringify(body)}\n${hint}` }], structuredContent: body };
  }

  /** What the call tool was asked to call, or a readable error. */
  target(args: JsonObject): { target: CallTarget } | { error: JsonObject } {
    const name = args.name;
    const callArgs = args.arguments ?? {};
    if (typeof name !== 'string' || name === '')
      return { error: toolError(`${CALL_TOOL} needs "name": the exact name ${SEARCH_TOOL} returned`) };
    if (name === CALL_TOOL || name === SEARCH_TOOL)
      return { error: toolError(`${CALL_TOOL} calls the found tools; call ${name} directly`) };
    if (typeof callArgs !== 'object' || callArgs === null || Array.isArray(callArgs))
      return { error: toolError(`${CALL_TOOL} "arguments" must be an object with the tool's arguments`) };
    return { target: { name, arguments: callArgs } };
  }
}

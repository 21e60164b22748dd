/**
 * `organize_desktop` (spec desktop-window-resources.md, "Desktop 组织策略"): filter, group by
 * server, order servers by the caller's tool-call history, sort by priority, apply per-server
 * fullscreen, cap at `size`, render. Pure: problems come back as warnings, never as logs.
 *
 * Cost is O(n log n) in the number of windows: one pass to resolve and group, one sort per server,
 * and only the windows that make it into the result are rendered.
 */
import { McpdError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { serverOrder, type ServerTouch } from '../history/server-order.js';
import { parseWindowUri, windowIdentity } from './window-uri.js';
import { renderWindow, windowFromResource, type ResolvedWindow } from './window-resource.js';

/** One window as collected from a server. */
export interface DesktopWindowInput {
  /** MCP server name (in the caller's profile) that exposes the window. */
  server: string;
  /** The `resources/list` entry (object with `uri`, optional `annotations` / `_meta`) or the bare URI. */
  resource: JsonValue;
  /** `ReadResourceResult.contents`; missing, null or empty means the window is skipped. */
  contents?: JsonValue;
}

export interface OrganizedWindow {
  server: string;
  /** Position in the input list: the "original order" of the fullscreen and tie rules. */
  index: number;
  uri: string;
  priority: number;
  fullscreen: boolean;
  /** The Desktop entry. */
  rendered: string;
}

export interface OrganizedDesktop {
  /** `GetDeskTopRet.desktops`, in order. */
  entries: string[];
  /** The same windows as `entries`, for inspection. */
  windows: OrganizedWindow[];
  /** Servers that had at least one usable window, in display order. */
  serverOrder: string[];
  warnings: string[];
}

/** A history as a list (chronological, oldest first) or anything with `records()`, like ToolCallHistory. */
export type HistoryInput = readonly ServerTouch[] | { records(): readonly ServerTouch[] };

interface Candidate {
  server: string;
  index: number;
  window: ResolvedWindow;
}

function checkSize(size: number | null | undefined): number {
  if (size === undefined || size === null) return Infinity;
  if (typeof size !== 'number' || !Number.isInteger(size)) {
    throw new McpdError('INVALID_ARGUMENT', `desktop size must be an integer or absent (unlimited), got ${String(size)}`);
  }
  return size;
}

/** Identity the `window` filter selects, or undefined for no filter; absent and "" mean no filter. */
function filterIdentity(filter: string | null | undefined): string | undefined {
  if (filter === undefined || filter === null || filter === '') return undefined;
  const parsed = parseWindowUri(filter);
  if (!parsed.ok) {
    throw new McpdError('INVALID_ARGUMENT', `GetDeskTopReq.window: ${parsed.error}`);
  }
  return windowIdentity(parsed.value);
}

function where(w: DesktopWindowInput, index: number): string {
  return `server ${JSON.stringify(w.server)}, window #${index}`;
}

/** Step 1: resolve, filter and group; returns groups in input order. */
function collect(
  windows: readonly DesktopWindowInput[],
  wanted: string | undefined,
  warnings: string[],
): Map<string, Candidate[]> {
  const groups = new Map<string, Candidate[]>();
  windows.forEach((input, index) => {
    const r = resolve(input);
    if (!r.ok) {
      // With a filter an invalid URI can never be the requested window: not worth a warning.
      if (wanted === undefined) warnings.push(`${where(input, index)} skipped: ${r.error}`);
      return;
    }
    const w = r.value;
    if (wanted !== undefined && windowIdentity(w.parsed) !== wanted) return;
    if (r.warnings.length) warnings.push(...r.warnings);
    const c = w.contents;
    if (c.total === 0) return;
    if (c.blobs === c.total) {
      warnings.push(`${where(input, index)} ${JSON.stringify(w.uri)} skipped: only blob contents, which the desktop does not render`);
      return;
    }
    if (c.blobs > 0) warnings.push(`${where(input, index)} ${JSON.stringify(w.uri)}: ${c.blobs} blob content(s) not rendered`);
    if (c.unrecognized > 0) {
      warnings.push(`${where(input, index)} ${JSON.stringify(w.uri)}: ${c.unrecognized} content item(s) are neither text nor blob; ignored`);
    }
    let g = groups.get(input.server);
    if (!g) groups.set(input.server, (g = []));
    g.push({ server: input.server, index, window: w });
  });
  return groups;
}

/**
 * Resolution memo: the service hands the same resource and contents objects to every call until a
 * window changes, so parsing the URI and classifying the contents is done once per change, not once
 * per request. Keyed by the resource object; a hit needs the identical contents object too. Weak,
 * so windows that are dropped are collected; inputs must not be mutated in place (replace them).
 */
const resolved = new WeakMap<object, { contents: JsonValue | undefined; result: ReturnType<typeof windowFromResource> }>();

function resolve(input: DesktopWindowInput): ReturnType<typeof windowFromResource> {
  const key = input.resource;
  if (typeof key !== 'object' || key === null) return windowFromResource(key, input.contents);
  const hit = resolved.get(key);
  if (hit && hit.contents === input.contents) return hit.result;
  const result = windowFromResource(key, input.contents);
  resolved.set(key, { contents: input.contents, result });
  return result;
}

/** Rendered entries per resolved window (same lifetime as the resolution memo). */
const renderedOf = new WeakMap<ResolvedWindow, string>();

function render(w: ResolvedWindow): string {
  let r = renderedOf.get(w);
  if (r === undefined) {
    r = renderWindow(w.uri, w.contents.texts);
    renderedOf.set(w, r);
  }
  return r;
}

/** Steps 3–4 for one server: the first fullscreen window alone, else all by priority descending. */
function pickForServer(items: Candidate[]): Candidate[] {
  const full = items.find((c) => c.window.fullscreen); // items are in input order
  if (full) return [full];
  // Array.prototype.sort is stable, and items are in input order: ties keep their original order.
  return items.slice().sort((a, b) => b.window.priority - a.window.priority);
}

function toOrganized(c: Candidate): OrganizedWindow {
  const w = c.window;
  return {
    server: c.server,
    index: c.index,
    uri: w.uri,
    priority: w.priority,
    fullscreen: w.fullscreen,
    rendered: render(w),
  };
}

/**
 * Organizes windows into Desktop entries.
 *
 * @param size global cap: undefined/null = unlimited, ≤ 0 = nothing, n = at most n entries.
 * @param history the caller's tool calls, oldest first.
 * @param filter `GetDeskTopReq.window`: keep only windows with the same identity (scheme, host and
 *   decoded path; query ignored). Absent or "" = no filter. An invalid URI throws INVALID_ARGUMENT.
 */
export function organizeDesktop(
  windows: readonly DesktopWindowInput[],
  size: number | null | undefined,
  history: HistoryInput,
  filter?: string | null,
): OrganizedDesktop {
  const cap = checkSize(size);
  const wanted = filterIdentity(filter);
  const empty: OrganizedDesktop = { entries: [], windows: [], serverOrder: [], warnings: [] };
  if (cap <= 0) return empty;

  const warnings: string[] = [];
  const groups = collect(windows, wanted, warnings);
  const records = Array.isArray(history) ? history : (history as { records(): readonly ServerTouch[] }).records();
  const order = serverOrder(records, groups.keys());

  const picked: OrganizedWindow[] = [];
  for (const server of order) {
    if (picked.length >= cap) break;
    for (const c of pickForServer(groups.get(server)!)) {
      if (picked.length >= cap) break;
      picked.push(toOrganized(c));
    }
  }
  return { entries: picked.map((w) => w.rendered), windows: picked, serverOrder: order, warnings };
}

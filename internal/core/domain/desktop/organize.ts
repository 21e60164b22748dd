/**
 * `organize_desktop` (spec desktop-window-resources.md, "Desktop 组织策略"): filter, group by
 * server, order servers by the caller's tool-call history, sort by priority, apply per-server
 * fullscreen, cap at `size`, render. Pure: problems come back as warnings, never as logs.
 *
 * Cost is O(n log n) in the number of windows: one pass to resolve (memoized per window, see
 * window-slot.ts) and group, a counting sort by server rank, then one comparator-free numeric-key
 * sort per server, stopping at the first server past `size`.
 */
import { McpdError } from '../../../shared/errors.js';
import type { JsonValue } from '../../../shared/json.js';
import { serverOrder, type ServerTouch } from '../history/server-order.js';
import { parseWindowUri, windowIdentity } from '../../../contract/desktop/window-uri.js';
import { scratchSlot, slotIdentity, windowSlot, type WindowSlot } from './window-slot.js';

/** One window as collected from a server. */
export interface DesktopWindowInput {
  /** MCP server name (in the caller's profile) that exposes the window. */
  server: string;
  /** The `resources/list` entry (object with `uri`, optional `annotations` / `_meta`) or the bare URI. */
  resource: JsonValue;
  /** `ReadResourceResult.contents`; missing, null or empty means the window is skipped. */
  contents?: JsonValue;
}

interface OrganizedWindow {
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

/** Usable windows after step 1, in input order, with their server as a dense id. */
interface Collected {
  windows: OrganizedWindow[];
  serverId: number[];
  servers: string[];
}

/** Step 1: resolve, filter and group (grouping is the server id; the sort happens later). */
function collect(windows: readonly DesktopWindowInput[], wanted: string | undefined, warnings: string[]): Collected {
  const out: Collected = { windows: [], serverId: [], servers: [] };
  const ids = new Map<string, number>();
  const scratch = scratchSlot();
  for (const [index, input] of windows.entries()) {
    const w = windowSlot(input.resource, input.contents, scratch);
    if (w.error !== undefined) {
      // With a filter an invalid URI can never be the requested window: not worth a warning.
      if (wanted === undefined) warnings.push(`${where(input, index)} skipped: ${w.error}`);
      continue;
    }
    if (wanted !== undefined && slotIdentity(w) !== wanted) continue;
    for (const m of w.warnings) warnings.push(m);
    if (w.total === 0) continue;
    if (w.blobs > 0 || w.unrecognized > 0) {
      if (!contentWarnings(w, where(input, index), warnings)) continue;
    }
    let id = ids.get(input.server);
    if (id === undefined) {
      id = out.servers.length;
      ids.set(input.server, id);
      out.servers.push(input.server);
    }
    out.windows.push({ server: input.server, index, uri: w.uri, priority: w.priority, fullscreen: w.fullscreen, rendered: w.rendered });
    out.serverId.push(id);
  }
  return out;
}

/** Warnings about contents the desktop does not render; false when nothing is left to render. */
function contentWarnings(w: WindowSlot, at: string, warnings: string[]): boolean {
  if (w.blobs === w.total) {
    warnings.push(`${at} ${JSON.stringify(w.uri)} skipped: only blob contents, which the desktop does not render`);
    return false;
  }
  if (w.blobs > 0) warnings.push(`${at} ${JSON.stringify(w.uri)}: ${w.blobs} blob content(s) not rendered`);
  if (w.unrecognized > 0) {
    warnings.push(`${at} ${JSON.stringify(w.uri)}: ${w.unrecognized} content item(s) are neither text nor blob; ignored`);
  }
  return true;
}

/**
 * Positions into `Collected` grouped by server rank (a stable counting sort); `starts[r]` opens rank r.
 * Typed-array reads here and in pickForServer/organizeDesktop carry `!` (the documented exception to
 * noUncheckedIndexedAccess, decision 37): every index is a loop bound over the same array or a rank/offset
 * computed from it, and these loops run per window on every Desktop read.
 */
function groupByRank(c: Collected, order: readonly string[]): { byRank: Uint32Array; starts: Uint32Array } {
  const rankOfId = new Uint32Array(c.servers.length);
  const idOf = new Map<string, number>();
  c.servers.forEach((s, id) => idOf.set(s, id));
  order.forEach((s, r) => (rankOfId[idOf.get(s)!] = r));
  const m = c.windows.length;
  const starts = new Uint32Array(order.length + 1);
  for (let j = 0; j < m; j++) starts[rankOfId[c.serverId[j]!]! + 1]!++;
  for (let r = 0; r < order.length; r++) starts[r + 1]! += starts[r]!;
  const fill = starts.slice(0, order.length);
  const byRank = new Uint32Array(m);
  for (let j = 0; j < m; j++) byRank[fill[rankOfId[c.serverId[j]!]!]!++] = j;
  return { byRank, starts };
}

/** Highest scaled priority: 100 with six decimals (annotation priorities keep six). */
const PRIORITY_STEPS = 100_000_000;

/**
 * Steps 3–4 for one server (`group` holds positions in input order): the first fullscreen window
 * alone, else all by priority descending with ties in input order. Sorted through one numeric key
 * per window (inverted priority, position), so the native typed-array sort needs no comparator.
 */
function pickForServer(group: Uint32Array, ws: readonly OrganizedWindow[]): Uint32Array {
  for (let k = 0; k < group.length; k++) if (ws[group[k]!]!.fullscreen) return group.subarray(k, k + 1);
  const m = group.length;
  if (m < 2) return group;
  const posScale = 2 ** Math.ceil(Math.log2(m + 1));
  if ((PRIORITY_STEPS + 1) * posScale > Number.MAX_SAFE_INTEGER) {
    // Over 2^26 windows in one server: too many for the packed key; a stable comparator sort.
    return Uint32Array.from(Array.from(group).sort((a, b) => ws[b]!.priority - ws[a]!.priority));
  }
  const keys = new Float64Array(m);
  for (let k = 0; k < m; k++) keys[k] = (PRIORITY_STEPS - Math.round(ws[group[k]!]!.priority * 1e6)) * posScale + k;
  keys.sort();
  const out = new Uint32Array(m);
  for (let k = 0; k < m; k++) out[k] = group[keys[k]! % posScale]!;
  return out;
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
  const c = collect(windows, wanted, warnings);
  const records = Array.isArray(history) ? history : (history as { records(): readonly ServerTouch[] }).records();
  const order = serverOrder(records, c.servers);
  const { byRank, starts } = groupByRank(c, order);

  const entries: string[] = [];
  const picked: OrganizedWindow[] = [];
  for (let r = 0; r < order.length && picked.length < cap; r++) {
    const chosen = pickForServer(byRank.subarray(starts[r], starts[r + 1]), c.windows);
    for (let k = 0; k < chosen.length && picked.length < cap; k++) {
      const w = c.windows[chosen[k]!]!;
      entries.push(w.rendered);
      picked.push(w);
    }
  }
  return { entries, windows: picked, serverOrder: order, warnings };
}

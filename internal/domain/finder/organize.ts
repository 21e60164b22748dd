import { McpdError } from '../errors.js';
import { isValidDpeUri } from './dpe-uri.js';
import { parseInstant } from './instant.js';
import type { DPEDocumentSummary, FinderQuery, FinderResult } from './types.js';

export const FINDER_DEFAULT_LIMIT = 20;

/**
 * organize_finder of the guide, with the order spec/README.md fixes: server rank ascending
 * (`serverOrder` first, in that order, then the other servers by name), then last_modified
 * descending as instants (unparseable or missing last), ties in input order.
 *
 * One filtering pass, a counting sort by server rank, and then only the server groups that overlap
 * the requested page are ordered by time: a page of 20 out of 100,000 documents sorts one or two
 * groups, not the whole catalogue. `total_count` needs no sort at all.
 */
export function organizeFinder(docs: readonly DPEDocumentSummary[], req: FinderQuery, serverOrder: readonly string[]): FinderResult {
  const offset = checkCount('offset', req.offset ?? 0);
  const limit = checkCount('limit', req.limit ?? FINDER_DEFAULT_LIMIT);
  const matches = keywordMatcher(req.keywords);
  const fileType = req.file_type || undefined;
  const kept: DPEDocumentSummary[] = [];
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    if ((fileType === undefined || d.file_type === fileType) && isDocumentUri(d.uri) && matches(d)) kept.push(d);
  }
  const total = kept.length;
  const end = Math.min(total, offset + limit);
  if (limit === 0 || offset >= total) return { documents: [], total_count: total };
  const { order, starts } = groupByRank(kept, serverOrder);
  for (let r = 0; r + 1 < starts.length; r++) {
    // Only groups that overlap [offset, end) need their time order.
    if (starts[r + 1] > offset && starts[r] < end) sortGroupByTime(order.subarray(starts[r], starts[r + 1]), kept);
  }
  const documents = new Array<DPEDocumentSummary>(end - offset);
  for (let j = offset; j < end; j++) documents[j - offset] = kept[order[j]];
  return { documents, total_count: total };
}

/** True for a valid `dpe://` URI: plain Level-1 URIs by a scan, the rest by the full parser. */
function isDocumentUri(uri: string): boolean {
  return typeof uri === 'string' && (isPlainLevel1Uri(uri) || isValidDpeUri(uri));
}

/**
 * `dpe://host/doc-ref` with printable ASCII only and percent-escapes of ASCII bytes (which always
 * decode): provably valid without a parse. False means "ask the parser", not "invalid".
 */
function isPlainLevel1Uri(uri: string): boolean {
  if (!uri.startsWith('dpe://')) return false;
  const len = uri.length;
  let i = 6;
  while (i < len && isHostChar(uri.charCodeAt(i))) i++;
  if (i === 6 || i >= len || uri.charCodeAt(i) !== 47 /* / */) return false;
  const refStart = ++i;
  for (; i < len; i++) {
    const c = uri.charCodeAt(i);
    if (c === 37 /* % */) {
      const hi = hexValue(uri.charCodeAt(i + 1));
      if (hi < 0 || hi > 7 || hexValue(uri.charCodeAt(i + 2)) < 0) return false;
      i += 2;
    } else if (c < 0x21 || c > 0x7e || c === 47 || c === 63 /* ? */ || c === 35 /* # */) return false;
  }
  return i > refStart;
}

function isHostChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

function checkCount(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new McpdError('INVALID_ARGUMENT', `GetFinder ${name} must be a non-negative integer, got ${String(n)}; pass 0 or more`, { data: { field: name, value: n } });
  }
  return n;
}

/** OR across keywords, each matched case-insensitively against title, keywords and summary. */
function keywordMatcher(keywords: readonly string[] | undefined): (d: DPEDocumentSummary) => boolean {
  // An empty keyword would match everything; it is dropped rather than treated as "match all".
  const kws = (keywords ?? []).map((k) => k.toLowerCase()).filter((k) => k.trim() !== '');
  if (kws.length === 0) return () => true;
  const hit = (field: string): boolean => {
    const low = field.toLowerCase();
    for (let k = 0; k < kws.length; k++) if (low.includes(kws[k])) return true;
    return false;
  };
  // Each field is lowered only when reached: most matches are decided by the title alone.
  // Each keyword entry is its own field: a query never matches across two keywords.
  return (d) => {
    if (hit(d.title)) return true;
    const ks = d.keywords;
    if (ks !== undefined) for (let k = 0; k < ks.length; k++) if (hit(ks[k])) return true;
    return d.summary !== undefined && hit(d.summary);
  };
}

/**
 * The full order (every group sorted), e.g. for an etag over the whole catalogue. Ranks and
 * timestamps are computed once per document, not per comparison.
 */
export function sortDocuments(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): DPEDocumentSummary[] {
  const { order, starts } = groupByRank(docs, serverOrder);
  for (let r = 0; r + 1 < starts.length; r++) sortGroupByTime(order.subarray(starts[r], starts[r + 1]), docs);
  const out = new Array<DPEDocumentSummary>(docs.length);
  for (let j = 0; j < docs.length; j++) out[j] = docs[order[j]];
  return out;
}

/**
 * Indices of `docs` grouped by server rank with a stable counting sort (each group in input
 * order); `starts[r]` is where rank r begins. Ranks: `serverOrder` entries first (first
 * occurrence wins), then every other server in code-unit order.
 */
function groupByRank(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): { order: Uint32Array; starts: Uint32Array } {
  const n = docs.length;
  const rankOf = new Map<string, number>();
  for (const s of serverOrder) if (!rankOf.has(s)) rankOf.set(s, rankOf.size);
  const listed = rankOf.size;
  const rest: string[] = [];
  const rank = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const s = docs[i].server;
    let r = rankOf.get(s);
    if (r === undefined) {
      r = rankOf.size; // provisional: renumbered below once every other server is known
      rankOf.set(s, r);
      rest.push(s);
    }
    rank[i] = r;
  }
  const renumber = new Uint32Array(rankOf.size);
  for (let r = 0; r < listed; r++) renumber[r] = r;
  const sortedRest = rest.slice().sort();
  for (let k = 0; k < sortedRest.length; k++) renumber[rankOf.get(sortedRest[k])!] = listed + k;
  const starts = new Uint32Array(rankOf.size + 1);
  for (let i = 0; i < n; i++) starts[(rank[i] = renumber[rank[i]]) + 1]++;
  for (let r = 0; r < rankOf.size; r++) starts[r + 1] += starts[r];
  const fill = starts.slice(0, rankOf.size);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[rank[i]]++] = i;
  return { order, starts };
}

/**
 * Sorts one server's document indices (already in input order) newest first, undated last,
 * stably. Each document gets one integer key (time offset, position) so a native, comparator-free
 * Float64Array sort orders the group; groups whose time span is too wide for such a key use a
 * comparator sort.
 */
function sortGroupByTime(group: Uint32Array, docs: readonly DPEDocumentSummary[]): void {
  const m = group.length;
  if (m < 2) return;
  // Newest first and undated last: ascending on the negated time, undated = +Infinity.
  const negTime = new Float64Array(m);
  let min = Infinity;
  let max = -Infinity;
  for (let j = 0; j < m; j++) {
    const lm = docs[group[j]].last_modified;
    const t = lm === undefined ? NaN : parseInstant(lm);
    const v = Number.isNaN(t) ? Infinity : -t;
    negTime[j] = v;
    if (v !== Infinity) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const undated = min === Infinity ? 0 : max - min + 1;
  const posScale = 2 ** bitsFor(m);
  const copy = group.slice();
  if (!Number.isSafeInteger(undated) || (undated + 1) * posScale > Number.MAX_SAFE_INTEGER) {
    const pos = Array.from({ length: m }, (_, j) => j).sort((a, b) => (negTime[a] === negTime[b] ? a - b : negTime[a] < negTime[b] ? -1 : 1));
    for (let j = 0; j < m; j++) group[j] = copy[pos[j]];
    return;
  }
  const keys = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const v = negTime[j];
    keys[j] = (v === Infinity ? undated : v - min) * posScale + j;
  }
  keys.sort();
  for (let j = 0; j < m; j++) group[j] = copy[keys[j] % posScale];
}

function bitsFor(count: number): number {
  return Math.max(1, Math.ceil(Math.log2(count + 1)));
}

import { McpdError } from '../errors.js';
import { isValidDpeUri } from './dpe-uri.js';
import { parseInstant } from './instant.js';
import type { DPEDocumentSummary, FinderQuery, FinderResult } from './types.js';

export const FINDER_DEFAULT_LIMIT = 20;

/**
 * organize_finder of the guide, with the order spec/README.md fixes: server rank ascending
 * (`serverOrder` first, in that order, then the other servers by name), then last_modified
 * descending as instants (unparseable or missing last), ties in input order.
 */
export function organizeFinder(docs: readonly DPEDocumentSummary[], req: FinderQuery, serverOrder: readonly string[]): FinderResult {
  const offset = checkCount('offset', req.offset ?? 0);
  const limit = checkCount('limit', req.limit ?? FINDER_DEFAULT_LIMIT);
  const matches = keywordMatcher(req.keywords);
  const fileType = req.file_type || undefined;
  const kept = docs.filter((d) => isDocumentUri(d.uri) && (fileType === undefined || d.file_type === fileType) && matches(d));
  const sorted = sortDocuments(kept, serverOrder);
  return { documents: limit === 0 ? [] : sorted.slice(offset, offset + limit), total_count: sorted.length };
}

// Plain Level-1 URIs need no percent-decoding or query checks, so this pattern proves them
// valid without a full parse; anything else goes through parseDpeUri.
const SIMPLE_DOC_URI = /^dpe:\/\/[A-Za-z0-9._~-]+\/[^/?#%\s\u0000-\u001f\u007f]+$/;

function isDocumentUri(uri: string): boolean {
  return typeof uri === 'string' && (SIMPLE_DOC_URI.test(uri) || isValidDpeUri(uri));
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
    return kws.some((k) => low.includes(k));
  };
  // Fields are lowered lazily: most matches are decided by the title alone.
  // Each keyword entry is its own field: a query never matches across two keywords.
  return (d) => hit(d.title) || (d.keywords !== undefined && d.keywords.some((k) => hit(k))) || (d.summary !== undefined && hit(d.summary));
}

/**
 * Ranks and timestamps are computed once, not per comparison. A stable counting sort groups the
 * documents by server rank; inside a group each document gets one integer key (time offset,
 * position) so a native, comparator-free Float64Array sort orders it, the position keeping ties
 * stable. Groups whose time span is too wide for such a key use a comparator sort.
 */
export function sortDocuments(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): DPEDocumentSummary[] {
  const rankOf = serverRanks(docs, serverOrder);
  const n = docs.length;
  const rank = new Uint32Array(n);
  const negTime = new Float64Array(n);
  const counts = new Uint32Array(rankOf.size + 1);
  for (let i = 0; i < n; i++) {
    const d = docs[i];
    const r = rankOf.get(d.server) ?? rankOf.size;
    rank[i] = r;
    counts[r]++;
    const t = d.last_modified === undefined ? NaN : parseInstant(d.last_modified);
    // Newest first and undated last: ascending on the negated time, undated = +Infinity.
    negTime[i] = Number.isNaN(t) ? Infinity : -t;
  }
  const starts = new Uint32Array(counts.length + 1);
  for (let r = 0; r < counts.length; r++) starts[r + 1] = starts[r] + counts[r];
  const order = new Uint32Array(n);
  const fill = starts.slice(0, counts.length);
  for (let i = 0; i < n; i++) order[fill[rank[i]]++] = i;
  for (let r = 0; r < counts.length; r++) sortGroupByTime(order.subarray(starts[r], starts[r + 1]), negTime);
  const out = new Array<DPEDocumentSummary>(n);
  for (let j = 0; j < n; j++) out[j] = docs[order[j]];
  return out;
}

/** Sorts one server's document indices (already in input order) by negated time, stably. */
function sortGroupByTime(group: Uint32Array, negTime: Float64Array): void {
  const m = group.length;
  if (m < 2) return;
  let min = Infinity;
  let max = -Infinity;
  for (let j = 0; j < m; j++) {
    const v = negTime[group[j]];
    if (v !== Infinity) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const undated = min === Infinity ? 0 : max - min + 1;
  const posScale = 2 ** bitsFor(m);
  if (!Number.isSafeInteger(undated) || (undated + 1) * posScale > Number.MAX_SAFE_INTEGER) {
    const sorted = Array.from(group).sort((a, b) => (negTime[a] === negTime[b] ? a - b : negTime[a] < negTime[b] ? -1 : 1));
    group.set(sorted);
    return;
  }
  const keys = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const v = negTime[group[j]];
    keys[j] = (v === Infinity ? undated : v - min) * posScale + j;
  }
  keys.sort();
  const copy = group.slice();
  for (let j = 0; j < m; j++) group[j] = copy[keys[j] % posScale];
}

function bitsFor(count: number): number {
  return Math.max(1, Math.ceil(Math.log2(count + 1)));
}

/** serverOrder entries first (first occurrence wins), then every other server by code-unit order. */
function serverRanks(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): Map<string, number> {
  const rank = new Map<string, number>();
  for (const s of serverOrder) if (!rank.has(s)) rank.set(s, rank.size);
  const rest = new Set<string>();
  for (const d of docs) if (!rank.has(d.server)) rest.add(d.server);
  for (const s of [...rest].sort()) rank.set(s, rank.size);
  return rank;
}

import { McpdError } from '../../../shared/errors.js';
import { isValidDpeUri } from '../../../contract/finder/dpe-uri.js';
import { parseInstant } from './instant.js';
import type { DPEDocumentSummary, FinderQuery, FinderResult } from '../../../contract/finder/types.js';

const FINDER_DEFAULT_LIMIT = 20;

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
  for (const d of docs) {
    if ((fileType === undefined || d.file_type === fileType) && isDocumentUri(d.uri) && matches(d)) kept.push(d);
  }
  const total = kept.length;
  const end = Math.min(total, offset + limit);
  if (limit === 0 || offset >= total) return { documents: [], total_count: total };
  const { order, starts } = groupByRank(kept, serverOrder);
  for (let r = 0; r + 1 < starts.length; r++) {
    // Only groups that overlap [offset, end) need their time order.
    if (starts[r + 1]! > offset && starts[r]! < end) sortGroupByTime(order.subarray(starts[r], starts[r + 1]), kept);
  }
  const documents = new Array<DPEDocumentSummary>(end - offset);
  for (let j = offset; j < end; j++) documents[j - offset] = kept[order[j]!]!;
  return { documents, total_count: total };
}

/** True for a valid `dpe://` URI: plain Level-1 URIs by a scan, the rest by the full parser. */
function isDocumentUri(uri: string): boolean {
  return typeof uri === 'string' && (isPlainLevel1Uri(uri) || isValidDpeUri(uri));
}

/**
 * `dpe://host/doc-ref` with printable ASCII only and percent-escapes of ASCII bytes (which always
 * decode): provably valid without a parse, and a native regex checks it faster than a character
 * loop. No match means "ask the parser", not "invalid".
 */
const PLAIN_LEVEL1_RE = /^dpe:\/\/[A-Za-z0-9._~-]+\/(?:[\x21\x22\x24\x26-\x2e\x30-\x3e\x40-\x7e]|%[0-7][0-9A-Fa-f])+$/;

function isPlainLevel1Uri(uri: string): boolean {
  return PLAIN_LEVEL1_RE.test(uri);
}

function checkCount(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new McpdError('INVALID_ARGUMENT', `GetFinder ${name} must be a non-negative integer, got ${String(n)}; pass 0 or more`, {
      data: { field: name, value: n },
    });
  }
  return n;
}

/** OR across keywords, each matched case-insensitively against title, keywords and summary. */
function keywordMatcher(keywords: readonly string[] | undefined): (d: DPEDocumentSummary) => boolean {
  // An empty keyword would match everything; it is dropped rather than treated as "match all".
  const kws = (keywords ?? []).map((k) => k.toLowerCase()).filter((k) => k.trim() !== '');
  if (kws.length === 0) return () => true;
  const maybe = asciiPrefilter(kws);
  const hit = (field: string): boolean => {
    if (maybe !== undefined && !maybe.test(field)) return false;
    const low = field.toLowerCase();
    for (const k of kws) if (low.includes(k)) return true;
    return false;
  };
  // Each keyword entry is its own field: a query never matches across two keywords.
  return (d) => {
    if (hit(d.title)) return true;
    const ks = d.keywords;
    if (ks !== undefined) for (const k of ks) if (hit(k)) return true;
    return d.summary !== undefined && hit(d.summary);
  };
}

/**
 * For ASCII keywords, a regex that every matching field matches: any keyword, ASCII
 * case-insensitively, or any non-ASCII character. A field it rejects is ASCII-only, and for ASCII
 * text `toLowerCase` only maps A–Z, so no keyword can be in `field.toLowerCase()`: the field is
 * decided without lowering it (no string allocated). Fields it accepts take the exact check.
 */
function asciiPrefilter(kws: readonly string[]): RegExp | undefined {
  // eslint-disable-next-line no-control-regex -- the range spells "any non-ASCII character", NUL included
  if (kws.some((k) => /[^\x00-\x7f]/.test(k))) return undefined;
  const alternatives = kws.map((k) => k.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
  return new RegExp(`${alternatives.join('|')}|[^\\x00-\\x7f]`, 'i');
}

/**
 * The full order (every group sorted), e.g. for an etag over the whole catalogue. Ranks and
 * timestamps are computed once per document, not per comparison.
 */
export function sortDocuments(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): DPEDocumentSummary[] {
  const { order, starts } = groupByRank(docs, serverOrder);
  for (let r = 0; r + 1 < starts.length; r++) sortGroupByTime(order.subarray(starts[r], starts[r + 1]), docs);
  const out = new Array<DPEDocumentSummary>(docs.length);
  for (let j = 0; j < docs.length; j++) out[j] = docs[order[j]!]!;
  return out;
}

/**
 * Indices of `docs` grouped by server rank with a stable counting sort (each group in input
 * order); `starts[r]` is where rank r begins. Ranks: `serverOrder` entries first (first
 * occurrence wins), then every other server in code-unit order.
 *
 * Typed-array reads here, in sortGroupByTime and where their results are used carry `!` (the
 * documented exception to noUncheckedIndexedAccess, decision 37): every index is a loop bound over
 * the same array or a rank/position computed from it, and these loops run per document per query.
 */
function groupByRank(docs: readonly DPEDocumentSummary[], serverOrder: readonly string[]): { order: Uint32Array; starts: Uint32Array } {
  const n = docs.length;
  const rankOf = new Map<string, number>();
  for (const s of serverOrder) if (!rankOf.has(s)) rankOf.set(s, rankOf.size);
  const listed = rankOf.size;
  const rest: string[] = [];
  const rank = new Uint32Array(n);
  for (const [i, { server: s }] of docs.entries()) {
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
  for (const [k, s] of sortedRest.entries()) renumber[rankOf.get(s)!] = listed + k;
  const starts = new Uint32Array(rankOf.size + 1);
  for (let i = 0; i < n; i++) starts[(rank[i] = renumber[rank[i]!]!) + 1]!++;
  for (let r = 0; r < rankOf.size; r++) starts[r + 1]! += starts[r]!;
  const fill = starts.slice(0, rankOf.size);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[rank[i]!]!++] = i;
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
    const lm = docs[group[j]!]!.last_modified;
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
    const pos = Array.from({ length: m }, (_, j) => j).sort((a, b) =>
      negTime[a] === negTime[b] ? a - b : negTime[a]! < negTime[b]! ? -1 : 1,
    );
    for (let j = 0; j < m; j++) group[j] = copy[pos[j]!]!;
    return;
  }
  const keys = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const v = negTime[j]!;
    keys[j] = (v === Infinity ? undated : v - min) * posScale + j;
  }
  keys.sort();
  for (let j = 0; j < m; j++) group[j] = copy[keys[j]! % posScale]!;
}

function bitsFor(count: number): number {
  return Math.max(1, Math.ceil(Math.log2(count + 1)));
}

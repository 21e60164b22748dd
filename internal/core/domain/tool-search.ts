/**
 * Ranked search over a tool catalog: BM25F-style scoring over the words of a tool's name, title,
 * description and parameter names, each field weighted (a word in the name says more than one in a
 * long description). Words are split at case changes, `_`, `-`, `.` and `/`, lower-cased and lightly
 * stemmed, and a query word also matches its common synonyms at a discount, because a user asking to
 * "remove a file" means the tool called `delete_file`.
 */
export interface SearchDoc {
  name: string;
  title?: string;
  description?: string;
  params: readonly string[];
}

export interface SearchHit {
  /** Position of the document in the array the index was built from. */
  index: number;
  score: number;
}

const FIELD_WEIGHTS = { name: 3, title: 2, params: 1.5, description: 1 } as const;
const K1 = 1.2;
const B = 0.75;
const SYNONYM_WEIGHT = 0.6;
const LIST_WORD = 'list';
const PLURAL_LIST_WEIGHT = 0.3;
const LIST_CUE = /\b(all|every)\b/i;

const STOP_WORDS = new Set(
  'a all an and are as at be by every can do does for from how i in into is it its me my of on or our please that the their them then this to us using use want we what when where which will with you your'.split(
    ' ',
  ),
);

/** Groups of words users and tool authors use for the same thing (stemmed when the module loads). */
const SYNONYM_GROUPS: readonly string[] = [
  'delete remove erase drop destroy trash unlink cancel',
  'create add new make insert schedule book draft compose write upload',
  'get fetch retrieve read show view load obtain',
  'list enumerate browse',
  'update edit modify change set patch rename scale resize close resolve complete',
  'search find query lookup look locate grep',
  'send post publish notify',
  'message chat dm',
  'mail email inbox',
  'issue ticket bug',
  'repository repo',
  'pull pr merge',
  'run execute start launch invoke trigger',
  'stop kill cancel halt terminate',
  'file document doc',
  'folder directory dir',
  'calendar event meeting appointment',
  'user member account person people',
  'image picture photo screenshot',
  'translate convert',
  'weather forecast temperature',
  'summary summarize summarise digest',
  'upload attach',
  'download export save',
];

const SYNONYMS = new Map<string, string[]>();
for (const line of SYNONYM_GROUPS) {
  const group = [...new Set(line.split(' ').map(stem))];
  for (const w of group) SYNONYMS.set(w, [...(SYNONYMS.get(w) ?? []), ...group.filter((o) => o !== w)]);
}

/** A few suffixes only: enough to meet "files"/"file", "deleting"/"delete", "repositories"/"repository". */
function stem(word: string): string {
  if (word.length <= 3) return word;
  const step = (w: string, re: RegExp, to: string): string => {
    const next = w.replace(re, to);
    return next.length >= 3 ? next : w;
  };
  // Plural, then verb endings, then a final e or y: "repositories" → "repositori", "deleting" → "delet".
  let w = /ie[sd]$/.test(word) ? step(word, /ie[sd]$/, 'i') : step(word, /([^s])s$/, '$1');
  w = step(w, /(ing|ed)$/, '');
  w = step(w, /ation$/, 'at');
  w = step(w, /e$/, '');
  return step(w, /y$/, 'i');
}

interface Word {
  stem: string;
  plural: boolean;
}

function words(text: string): Word[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  const out: Word[] = [];
  for (const raw of spaced.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw === '' || STOP_WORDS.has(raw)) continue;
    out.push({ stem: stem(raw), plural: raw.length > 3 && /[^su]s$/.test(raw) });
  }
  return out;
}

/** Words of a name or sentence, split at case changes and punctuation, stemmed, stop words dropped. */
function tokenize(text: string): string[] {
  return words(text).map((w) => w.stem);
}

interface Posting {
  doc: number;
  /** Field-weighted, length-normalised term frequency (BM25F's pseudo-frequency). */
  tf: number;
}

function fieldTexts(d: SearchDoc): [keyof typeof FIELD_WEIGHTS, string][] {
  return [
    ['name', d.name],
    ['title', d.title ?? ''],
    ['description', d.description ?? ''],
    ['params', d.params.join(' ')],
  ];
}

/** An inverted index over one catalog; build once per catalog, query many times. */
export class ToolSearchIndex {
  private readonly postings = new Map<string, Posting[]>();
  private readonly scores: Float64Array;
  readonly size: number;

  constructor(docs: readonly SearchDoc[]) {
    this.size = docs.length;
    this.scores = new Float64Array(docs.length);
    const tokenized = docs.map((d) => fieldTexts(d).map(([field, text]) => [field, tokenize(text)] as const));
    const avg = new Map<string, number>();
    for (const field of Object.keys(FIELD_WEIGHTS)) {
      let total = 0;
      for (const fields of tokenized) total += fields.find(([f]) => f === field)?.[1].length ?? 0;
      avg.set(field, Math.max(1, total / Math.max(1, docs.length)));
    }
    tokenized.forEach((fields, doc) => {
      const tf = new Map<string, number>();
      for (const [field, words] of fields) {
        const norm = 1 - B + (B * words.length) / (avg.get(field) ?? 1);
        for (const w of words) tf.set(w, (tf.get(w) ?? 0) + FIELD_WEIGHTS[field] / norm);
      }
      for (const [w, f] of tf) {
        let list = this.postings.get(w);
        if (!list) this.postings.set(w, (list = []));
        list.push({ doc, tf: f });
      }
    });
  }

  /** The best `limit` documents for the query, best first; documents matching no word are left out. */
  search(query: string, limit: number): SearchHit[] {
    const scores = this.scores;
    scores.fill(0);
    const touched: number[] = [];
    for (const [word, weight] of this.queryTerms(query)) {
      const list = this.postings.get(word);
      if (!list) continue;
      const idf = Math.log(1 + (this.size - list.length + 0.5) / (list.length + 0.5));
      for (const p of list) {
        // Postings hold indexes of documents this index built `scores` for (decision 37: numeric kernel).
        if (scores[p.doc] === 0) touched.push(p.doc);
        scores[p.doc]! += weight * idf * ((p.tf * (K1 + 1)) / (p.tf + K1));
      }
    }
    return topK(touched, scores, limit);
  }

  /** Query words (each once) with their weight; synonyms add at a discount, never above the word itself. */
  private queryTerms(query: string): Map<string, number> {
    const terms = new Map<string, number>();
    // "all" and "every" are noise in descriptions ("with all of its fields") but in a query they ask for a listing.
    if (LIST_CUE.test(query)) terms.set(LIST_WORD, SYNONYM_WEIGHT);
    for (const { stem: w, plural } of words(query)) {
      terms.set(w, 1);
      // A plural asks for many: "which containers are there" wants the listing tool.
      if (plural && !terms.has(LIST_WORD)) terms.set(LIST_WORD, PLURAL_LIST_WEIGHT);
      for (const s of SYNONYMS.get(w) ?? []) if (!terms.has(s)) terms.set(s, SYNONYM_WEIGHT);
    }
    return terms;
  }
}

function topK(docs: readonly number[], scores: Float64Array, k: number): SearchHit[] {
  const best: SearchHit[] = [];
  for (const index of docs) {
    const score = scores[index]!; // `docs` are the touched indexes of `scores`
    const last = best.at(-1);
    if (best.length === k && last !== undefined && score <= last.score) continue;
    let i = best.length;
    while (i > 0 && best[i - 1]!.score < score) i--;
    best.splice(i, 0, { index, score });
    if (best.length > k) best.pop();
  }
  return best;
}

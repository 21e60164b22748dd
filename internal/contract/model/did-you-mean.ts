import { compareNames } from './naming.js';

/**
 * Levenshtein distance (one row of the table: names are short, allocation is what costs). Every index is
 * within the row it allocates, so reads carry `!` (numeric kernel: decision 37).
 */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** How many edits still read as a typo of a word this long. */
function typoBudget(word: string): number {
  return Math.max(2, Math.floor(word.length / 3));
}

/**
 * Names close to `wanted`, best first. A candidate containing `wanted` ranks ahead of edit-distance
 * matches: callers often ask for the downstream name ("read_file") of a namespaced tool
 * ("fs__read_file").
 */
export function closestNames(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = wanted.toLowerCase();
  const budget = typoBudget(wanted);
  const scored: [number, string][] = [];
  for (const c of candidates) {
    const hay = c.toLowerCase();
    if (needle !== '' && hay.includes(needle)) {
      scored.push([(hay.length - needle.length) / 1000, c]);
      continue;
    }
    const d = editDistance(needle, hay);
    if (d <= budget) scored.push([d, c]);
  }
  scored.sort((x, y) => x[0] - y[0] || compareNames(x[1], y[1]));
  return scored.slice(0, limit).map(([, c]) => c);
}

/** Case, `_` and `-` do not count, so `forbidden_tools` finds `forbiddenTools`. */
function normalise(s: string): string {
  return s.toLowerCase().replace(/[-_]/g, '');
}

/** The closest key or command if it is plausibly a typo of `word`, else undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = normalise(word);
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, normalise(c));
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return bestD <= typoBudget(w) ? best : undefined;
}

/** `did you mean "x"? ` for an error message, or '' when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c ? `did you mean "${c}"? ` : '';
}

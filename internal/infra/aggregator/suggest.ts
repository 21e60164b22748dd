import { compareNames } from '../../domain/naming.js';

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * Names close to `wanted`, best first. A candidate containing `wanted` ranks ahead of edit-distance
 * matches: callers often ask for the downstream name ("read_file") of a namespaced tool
 * ("fs__read_file").
 */
export function closestNames(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = wanted.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  const scored: [number, string][] = [];
  for (const c of candidates) {
    const hay = c.toLowerCase();
    if (needle !== '' && hay.includes(needle)) {
      scored.push([(hay.length - needle.length) / 1000, c]);
      continue;
    }
    const d = levenshtein(needle, hay);
    if (d <= budget) scored.push([d, c]);
  }
  scored.sort((x, y) => x[0] - y[0] || compareNames(x[1], y[1]));
  return scored.slice(0, limit).map(([, c]) => c);
}

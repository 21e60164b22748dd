/** Case, `_` and `-` do not count, so `forbidden_tools` finds `forbiddenTools`. */
function normalise(s: string): string {
  return s.toLowerCase().replace(/[-_]/g, '');
}

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The closest candidate if it is plausibly a typo of `word`, else undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = normalise(word);
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(w, normalise(c));
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  const budget = Math.max(2, Math.floor(w.length / 3));
  return bestD <= budget ? best : undefined;
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c ? `did you mean "${c}"? ` : '';
}

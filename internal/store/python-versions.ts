/**
 * Enough of PEP 440 to choose what a PyPI requirement's specifiers (`>=1.2,<2`, `~=1.4`, `==1.*`, `!=1.3`)
 * mean among a project's releases: final releases only (`1`, `1.2`, `1.2.3`…), as pip and uv choose
 * by default when a final release matches. Pure.
 */

const FINAL = /^\d+(\.\d+)*$/;

const parts = (v: string): number[] => v.split('.').map(Number);

/** Negative, zero or positive as a is lower, equal or higher (trailing zeros do not count: 1.0 == 1). */
function compareVersions(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function satisfies(version: string, clause: string): boolean {
  const m = /^(==|!=|>=|<=|~=|>|<)(.+)$/.exec(clause);
  if (!m) return false;
  const [, op, want = ''] = m;
  if (want.endsWith('.*')) {
    const prefix = parts(want.slice(0, -2));
    const same = prefix.every((n, i) => (parts(version)[i] ?? 0) === n);
    return op === '==' ? same : op === '!=' ? !same : false;
  }
  if (!FINAL.test(want)) return false;
  const c = compareVersions(version, want);
  switch (op) {
    case '==':
      return c === 0;
    case '!=':
      return c !== 0;
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    default: {
      // ~=X.Y means >=X.Y and ==X.*; ~=X.Y.Z means >=X.Y.Z and ==X.Y.*
      const w = parts(want);
      if (w.length < 2 || c < 0) return false;
      return w.slice(0, -1).every((n, i) => (parts(version)[i] ?? 0) === n);
    }
  }
}

/** The highest final release matching every comma-separated clause of `requested`, or undefined. */
export function highestMatching(releases: readonly string[], requested: string): string | undefined {
  const clauses = requested.split(',');
  return releases
    .filter((v) => FINAL.test(v) && clauses.every((c) => satisfies(v, c)))
    .sort(compareVersions)
    .at(-1);
}

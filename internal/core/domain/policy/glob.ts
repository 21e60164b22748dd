/**
 * A compiled glob over names and URIs: `*` matches any run of characters (slashes included: a tool's
 * name has none, and `file:///tmp/*` should cover the whole tree), `?` one character; the rest is literal.
 * Compiled once per rule at load, so matching a call is one regular-expression test.
 */
export type Glob = (s: string) => boolean;

export function compileGlob(pattern: string): Glob {
  if (pattern === '*') return () => true;
  if (!/[*?]/.test(pattern)) return (s) => s === pattern;
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*+/g, '.*')
    .replace(/\?/g, '.');
  const re = new RegExp(`^${body}$`, 's');
  return (s) => re.test(s);
}

/** Any of the globs; an empty list matches everything (an omitted `callers:`). */
export function anyGlob(patterns: readonly string[]): Glob {
  if (patterns.length === 0) return () => true;
  const globs = patterns.map(compileGlob);
  if (globs.length === 1) return globs[0] as Glob;
  return (s) => globs.some((g) => g(s));
}

/**
 * Tool-name patterns for `exposeTools` / `forbiddenTools`: `*` is any run of characters (none
 * included), `?` exactly one; everything else is literal. A pattern without either is an exact name,
 * so existing configurations keep their meaning.
 */
export interface NamePattern {
  text: string;
  isGlob: boolean;
  test(name: string): boolean;
}

const GLOB_CHARS = /[*?]/;

function globRegExp(pattern: string): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

export function namePattern(text: string): NamePattern {
  if (!GLOB_CHARS.test(text)) return { text, isGlob: false, test: (name) => name === text };
  const re = globRegExp(text);
  return { text, isGlob: true, test: (name) => re.test(name) };
}

/** A set of patterns: exact names are looked up, globs tried in order. */
export class NamePatterns {
  readonly patterns: readonly NamePattern[];
  private readonly exact: Set<string>;
  private readonly globs: NamePattern[];

  constructor(texts: readonly string[]) {
    this.patterns = texts.map(namePattern);
    this.exact = new Set(this.patterns.filter((p) => !p.isGlob).map((p) => p.text));
    this.globs = this.patterns.filter((p) => p.isGlob);
  }

  matches(name: string): boolean {
    return this.exact.has(name) || this.globs.some((g) => g.test(name));
  }

  /** Patterns that match none of `names`: a typo, or a tool the server no longer has. */
  unmatched(names: readonly string[]): NamePattern[] {
    const have = new Set(names);
    return this.patterns.filter((p) => (p.isGlob ? !names.some((n) => p.test(n)) : !have.has(p.text)));
  }
}

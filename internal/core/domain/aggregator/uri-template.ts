/**
 * Matching a URI against an RFC 6570 template, enough to route reads: level-1 `{var}` matches one
 * path segment (no "/", "?" or "#"), `{+var}` and `{#var}` match anything, `{?a,b}` / `{&a}` match
 * an optional query. A template without a query part still matches a URI that adds one (dpe://
 * URIs carry `?format=…`).
 */
function compileUriTemplate(template: string): RegExp {
  let re = '^';
  let last = 0;
  let hasQuery = false;
  const expr = /\{([^}]*)\}/g;
  for (let m = expr.exec(template); m !== null; m = expr.exec(template)) {
    re += escape(template.slice(last, m.index));
    last = m.index + m[0].length;
    const [, expression = ''] = m;
    const op = expression.charAt(0);
    if (op === '+' || op === '#') re += '(.*)';
    else if (op === '?' || op === '&') {
      re += '(?:[?&][^#]*)?';
      hasQuery = true;
    } else if (op === '/' || op === ';' || op === '.') re += `(?:\\${op}[^/?#]*)*`;
    else re += '([^/?#]*)';
  }
  const tail = template.slice(last);
  if (tail.includes('?')) hasQuery = true;
  re += escape(tail);
  if (!hasQuery) re += '(?:\\?[^#]*)?';
  return new RegExp(`${re}$`);
}

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 1000;

export function matchesUriTemplate(template: string, uri: string): boolean {
  let re = cache.get(template);
  if (!re) {
    re = compileUriTemplate(template);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(template, re);
  }
  return re.test(uri);
}

/** Characters of the template before its first expression: more of it means a more specific template. */
export function literalPrefixLength(template: string): number {
  const i = template.indexOf('{');
  return i < 0 ? template.length : i;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

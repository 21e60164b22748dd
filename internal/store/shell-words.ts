/** End index (exclusive) of a `${…}` starting at `i`, nested braces included; -1 if unclosed. */
function placeholderEnd(line: string, i: number): number {
  let depth = 0;
  for (let j = i + 1; j < line.length; j++) {
    if (line[j] === '{') depth++;
    else if (line[j] === '}' && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * Splits a command line into argv the way a POSIX shell would for words and quotes only:
 * no globbing, no operators. A `${…}` placeholder is kept whole (its fallback may contain
 * spaces) and expanded later. Returns an error text on an unterminated quote.
 */
export function shellWords(line: string): { words: string[] } | { error: string } {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    const end = quote !== "'" && c === '$' && line[i + 1] === '{' ? placeholderEnd(line, i) : -1;
    if (end > 0) {
      cur += line.slice(i, end);
      inWord = true;
      i = end - 1;
    } else if (quote === "'") {
      if (c === "'") quote = undefined;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line.charAt(i + 1))) cur += line.charAt(++i);
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) return { error: `unterminated ${quote === '"' ? 'double' : 'single'} quote` };
  if (inWord) words.push(cur);
  return { words };
}

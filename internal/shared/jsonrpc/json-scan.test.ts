import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonValueEnd, MAX_JSON_DEPTH, skipJsonWs } from './json-scan.js';

/** True when `text` is one JSON value (surrounding whitespace allowed), by our scan. */
function scans(text: string): boolean {
  const b = Buffer.from(text, 'utf8');
  const end = jsonValueEnd(b, 0);
  return end >= 0 && skipJsonWs(b, end) === b.length;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('the JSON grammar check on bytes', () => {
  it('finds the end of every JSON value, however it is spaced', () => {
    fc.assert(
      fc.property(fc.json(), fc.constantFrom('', ' ', '\n\t '), (json, ws) => {
        const spaced = json.replace(/([,:[\]{}])/g, `${ws}$1${ws}`);
        if (!parses(spaced)) return; // the spacing landed inside a string's escape
        const b = Buffer.from(`${ws}${spaced}${ws}],"next":1`, 'utf8');
        // The value ends at its last byte: whitespace after it is not part of it.
        expect(jsonValueEnd(b, 0)).toBe(Buffer.byteLength(`${ws}${spaced.replace(/[ \n\t]+$/, '')}`));
      }),
    );
  });

  it('agrees with JSON.parse on what is one JSON value', () => {
    const near = fc
      .json()
      .chain((j) =>
        fc
          .tuple(
            fc.nat(j.length),
            fc.nat(j.length),
            fc.constantFrom('', '"', '\\', ',', '}', ']', '{', '[', '-', '.', 'e', '0', '\u0001', 'tru'),
          )
          .map(([at, cut, ins]) => j.slice(0, at) + ins + j.slice(Math.min(j.length, at + (cut % 3)))),
      );
    fc.assert(
      fc.property(fc.oneof(near, fc.string()), (text) => {
        expect(scans(text), text).toBe(parses(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with JSON.parse on long strings (checked natively when plain): escapes, raw control bytes, quotes, UTF-8', () => {
    const piece = fc.oneof(
      { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
      fc.constantFrom('\\', '\\"', '\\n', '\\u00e9', '\\u12', '"', '\u0001', '\n', '\t', 'é', '😀', '\u007f'),
    );
    const long = fc.array(piece, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(long, fc.boolean(), (body, nested) => {
        const text = nested ? `{"content":[{"type":"text","text":"${body}"}],"isError":false}` : `"${body}"`;
        expect(scans(text), text).toBe(parses(text));
        if (parses(text)) expect(jsonValueEnd(Buffer.from(`${text},"id":1}`), 0)).toBe(Buffer.byteLength(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses what JSON.parse refuses, named', () => {
    for (const bad of [
      '{"a":1,}',
      '[1,]',
      '{"a"}',
      '{a:1}',
      '01',
      '1.',
      '.5',
      '1e',
      '"\\x"',
      '"\\u12"',
      '"a\u0001"',
      'tru',
      'nul',
      '"open',
      '{"a":1',
      '[',
      '-',
    ]) {
      expect(scans(bad), bad).toBe(false);
    }
    for (const good of ['{}', '[]', '""', '0', '-0.5e+10', 'true', 'null', '{"a":[{},[],"\\u00e9\\n"]}', '"é ✓"']) {
      expect(scans(good), good).toBe(true);
    }
  });

  it('takes deep nesting without recursion, up to its bound', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(scans(deep(MAX_JSON_DEPTH))).toBe(true);
    expect(scans(deep(MAX_JSON_DEPTH + 1))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import {
  booleanWord,
  buildWindowUri,
  canonicalWindowUri,
  isWindowUri,
  parseWindowUri,
  windowIdentity,
  type WindowUri,
} from './window-uri.js';

function ok(uri: string): WindowUri {
  const r = parseWindowUri(uri);
  if (!r.ok) throw new Error(`expected ${uri} to parse, got: ${r.error}`);
  return r.value;
}

function err(uri: string): string {
  const r = parseWindowUri(uri);
  if (r.ok) throw new Error(`expected ${uri} to fail, got ${JSON.stringify(r.value)}`);
  return r.error;
}

describe('parseWindowUri: spec examples', () => {
  it('full URI with path, priority and fullscreen', () => {
    expect(ok('window://com.example.browser/main/tab1?priority=80&fullscreen=true')).toStrictEqual({
      host: 'com.example.browser',
      path: ['main', 'tab1'],
      priority: 80,
      fullscreen: true,
    });
  });
  it('minimal URI: no path, no query; priority and fullscreen stay absent', () => {
    expect(ok('window://com.example.logger')).toStrictEqual({ host: 'com.example.logger', path: [] });
  });
  it('encoded segments: c%2Fd stays one segment and decodes to c/d', () => {
    expect(ok('window://com.example.editor/src%2Fmain/file%20name').path).toEqual(['src/main', 'file name']);
  });
});

describe('parseWindowUri: rule 1, scheme', () => {
  it('rejects another scheme and names it', () => {
    expect(err('http://com.example/a')).toMatch(/scheme must be 'window', got 'http'/);
  });
  it('rejects a missing scheme', () => {
    expect(err('com.example/a')).toMatch(/missing scheme/);
  });
  it('accepts the scheme in any case (RFC 3986) and canonicalises it to lower case', () => {
    expect(ok('WINDOW://a').host).toBe('a');
    expect(canonicalWindowUri('Window://a/B')).toBe('window://a/B');
  });
  it("requires '//' after the scheme", () => {
    expect(err('window:com.example')).toMatch(/expected '\/\/'/);
    expect(err('window:/com.example')).toMatch(/expected '\/\/'/);
  });
});

describe('parseWindowUri: rule 2, host', () => {
  it('rejects an empty host', () => {
    expect(err('window://')).toMatch(/host is empty/);
    expect(err('window:///a')).toMatch(/host is empty/);
    expect(err('window://?priority=1')).toMatch(/host is empty/);
  });
  it('lower-cases the host (hosts are case-insensitive)', () => {
    expect(ok('window://Com.Example.APP/X').host).toBe('com.example.app');
  });
  it('keeps the case of path segments', () => {
    expect(ok('window://a/Main/TAB').path).toEqual(['Main', 'TAB']);
  });
  it.each([
    ['user info', 'window://user@host/a'],
    ['port', 'window://host:8080/a'],
    ['percent-escape', 'window://ho%41st'],
    ['IPv6 literal', 'window://[::1]/a'],
    ['non-ASCII', 'window://例子/a'],
  ])('rejects a host with %s', (_what, uri) => {
    expect(err(uri)).toMatch(/may only contain letters, digits/);
  });
  it('accepts the unreserved characters - . _ ~', () => {
    expect(ok('window://my_app-1.x~y').host).toBe('my_app-1.x~y');
  });
});

describe('parseWindowUri: rule 5, path segments', () => {
  it('a single trailing slash is dropped', () => {
    expect(ok('window://h/').path).toEqual([]);
    expect(ok('window://h/a/').path).toEqual(['a']);
    expect(ok('window://h/a/?priority=2')).toEqual({ host: 'h', path: ['a'], priority: 2 });
  });
  it('rejects empty segments elsewhere and says which', () => {
    expect(err('window://h//a')).toMatch(/path segment 1 is empty/);
    expect(err('window://h/a//b')).toMatch(/path segment 2 is empty/);
    expect(err('window://h/a//')).toMatch(/path segment 2 is empty/);
    expect(err('window://h//')).toMatch(/path segment 1 is empty/);
  });
  it('decodes UTF-8 escapes and keeps raw non-ASCII as is', () => {
    expect(ok('window://h/%E4%BE%8B/例').path).toEqual(['例', '例']);
  });
  it('an encoded segment may hold ? # % and / after decoding', () => {
    expect(ok('window://h/a%3Fb%23c%25d%2Fe').path).toEqual(['a?b#c%d/e']);
  });
  it("'+' in a path is a literal plus", () => {
    expect(ok('window://h/a+b').path).toEqual(['a+b']);
  });
  it("rejects '%' not followed by two hex digits", () => {
    expect(err('window://h/a%2')).toMatch(/'%' not followed by two hex digits/);
    expect(err('window://h/a%zz')).toMatch(/'%' not followed by two hex digits/);
    expect(err('window://h/100%')).toMatch(/path segment 1/);
  });
  it('rejects escapes that are not valid UTF-8', () => {
    expect(err('window://h/%FF')).toMatch(/not valid UTF-8/);
    expect(err('window://h/%C3')).toMatch(/not valid UTF-8/);
  });
});

describe('parseWindowUri: characters and fragments', () => {
  it('rejects raw spaces and control characters with their offset', () => {
    expect(err('window://h/a b')).toMatch(/U\+0020 at offset 12/);
    expect(err('window://h/a\tb')).toMatch(/U\+0009/);
    expect(err(' window://h')).toMatch(/offset 0/);
    expect(err('window://h\n')).toMatch(/U\+000A/);
  });
  it('rejects unpaired surrogates', () => {
    expect(err('window://h/\uD800')).toMatch(/unpaired UTF-16 surrogate/);
  });
  it('rejects a fragment', () => {
    expect(err('window://h/a#top')).toMatch(/fragment/);
    expect(err('window://h/a?priority=1#x')).toMatch(/fragment/);
  });
  it('non-string input fails instead of throwing', () => {
    expect(parseWindowUri(null as unknown as string).ok).toBe(false);
  });
});

describe('parseWindowUri: rule 3, priority', () => {
  it.each([
    ['0', 0],
    ['100', 100],
    ['50', 50],
    ['05', 5],
    ['007', 7],
    ['%35', 5],
  ])('accepts priority=%s as %d', (raw, n) => {
    expect(ok(`window://h?priority=${raw}`).priority).toBe(n);
  });
  it.each([
    ['empty', ''],
    ['plus sign', '+5'],
    ['encoded plus', '%2B5'],
    ['negative', '-1'],
    ['above 100', '101'],
    ['huge', '99999999999999999999'],
    ['fraction', '1.5'],
    ['decimal point', '1.0'],
    ['exponent', '1e1'],
    ['hex', '0x10'],
    ['encoded space', '%205'],
    ['word', 'high'],
  ])('rejects priority %s', (_what, raw) => {
    expect(err(`window://h?priority=${raw}`)).toMatch(/priority must be/);
  });
  it('rejects a priority key without a value', () => {
    expect(err('window://h?priority')).toMatch(/'priority' has no value/);
  });
});

describe('parseWindowUri: rule 4, fullscreen', () => {
  it.each(['true', '1', 'yes', 'on', 'TRUE', 'Yes', 'oN'])('fullscreen=%s is true', (w) => {
    expect(ok(`window://h?fullscreen=${w}`).fullscreen).toBe(true);
  });
  it.each(['false', '0', 'no', 'off', 'FALSE', 'No', 'OFF'])('fullscreen=%s is false', (w) => {
    expect(ok(`window://h?fullscreen=${w}`).fullscreen).toBe(false);
  });
  it.each([
    ['leading space', '%20true'],
    ['trailing space', 'true%20'],
    ['empty', ''],
    ['other word', 'maybe'],
    ['t', 't'],
    ['2', '2'],
  ])('rejects fullscreen with %s', (_what, raw) => {
    expect(err(`window://h?fullscreen=${raw}`)).toMatch(/fullscreen must be one of/);
  });
  it('rejects fullscreen without a value', () => {
    expect(err('window://h?fullscreen')).toMatch(/'fullscreen' has no value/);
  });
  it('booleanWord matches ASCII case only', () => {
    expect(booleanWord('ON')).toBe(true);
    expect(booleanWord(' on')).toBeUndefined();
    expect(booleanWord('\u212Aon')).toBeUndefined();
  });
});

describe('parseWindowUri: query shape', () => {
  it('rejects a repeated known key, even with the same value', () => {
    expect(err('window://h?priority=1&priority=2')).toMatch(/'priority' is given more than once/);
    expect(err('window://h?fullscreen=1&fullscreen=1')).toMatch(/'fullscreen' is given more than once/);
  });
  it('ignores unknown keys, repeated or not, with or without a value', () => {
    expect(ok('window://h?x=1&x=2&flag&priority=3')).toStrictEqual({ host: 'h', path: [], priority: 3 });
  });
  it('keys are case-sensitive: Priority is an unknown key', () => {
    expect(ok('window://h?Priority=5')).toStrictEqual({ host: 'h', path: [] });
  });
  it('keys are percent-decoded', () => {
    expect(ok('window://h?%70riority=4').priority).toBe(4);
  });
  it('an empty query and empty pairs are ignored', () => {
    expect(ok('window://h?')).toStrictEqual({ host: 'h', path: [] });
    expect(ok('window://h/a?&&priority=1&')).toEqual({ host: 'h', path: ['a'], priority: 1 });
  });
  it('percent-encoding errors in unknown keys still fail the URI', () => {
    expect(err('window://h?x=%G0')).toMatch(/value of 'x'/);
  });
  it('order of keys does not matter', () => {
    expect(ok('window://h?fullscreen=on&priority=9')).toEqual({ host: 'h', path: [], priority: 9, fullscreen: true });
  });
});

describe('buildWindowUri', () => {
  it('builds the spec example', () => {
    expect(buildWindowUri({ host: 'com.example.browser', path: ['main', 'tab1'], priority: 80, fullscreen: true })).toBe(
      'window://com.example.browser/main/tab1?priority=80&fullscreen=true',
    );
  });
  it('encodes each segment so / stays inside one segment', () => {
    expect(buildWindowUri({ host: 'h', path: ['src/main', 'file name'] })).toBe('window://h/src%2Fmain/file%20name');
  });
  it('writes fullscreen=false when given, and omits absent keys', () => {
    expect(buildWindowUri({ host: 'h', fullscreen: false })).toBe('window://h?fullscreen=false');
    expect(buildWindowUri({ host: 'h' })).toBe('window://h');
  });
  it('lower-cases the host', () => {
    expect(buildWindowUri({ host: 'Com.Example' })).toBe('window://com.example');
  });
  it.each([
    ['empty host', { host: '' }, /host: must be a non-empty/],
    ['bad host', { host: 'a:1' }, /host: 'a:1'/],
    ['empty segment', { host: 'h', path: ['a', ''] }, /path\[1\]/],
    ['lone surrogate', { host: 'h', path: ['\uDC00'] }, /path\[0\]: contains an unpaired/],
    ['fractional priority', { host: 'h', priority: 1.5 }, /priority: must be an integer/],
    ['priority 101', { host: 'h', priority: 101 }, /priority/],
    ['priority -1', { host: 'h', priority: -1 }, /priority/],
    ['non-boolean fullscreen', { host: 'h', fullscreen: 'yes' as unknown as boolean }, /fullscreen: must be a boolean/],
  ])('throws INVALID_ARGUMENT for %s', (_what, input, msg) => {
    expect(() => buildWindowUri(input)).toThrow(McpdError);
    expect(() => buildWindowUri(input)).toThrow(msg);
  });
});

describe('round trip', () => {
  const values: WindowUri[] = [
    { host: 'h', path: [] },
    { host: 'com.example.browser', path: ['main', 'tab1'], priority: 80, fullscreen: true },
    { host: 'a', path: ['c/d', 'x y', '100%', 'a?b#c', 'é例🙂', "!'()*", '+'], priority: 0, fullscreen: false },
    { host: 'x~y_z-1', path: ['.'], priority: 100 },
  ];
  it.each(values)('parse(build(v)) equals v: %j', (v) => {
    expect(ok(buildWindowUri(v))).toStrictEqual(v);
  });
  const inputs = [
    'WINDOW://Com.Example/A/',
    'window://h/%7e?x=1&priority=05&fullscreen=YES',
    'window://h/a+b/%E4%BE%8B?fullscreen=off&',
    'window://h?',
    'window://h/例',
  ];
  it.each(inputs)('build(parse(x)) is canonical (a fixed point): %s', (x) => {
    const once = buildWindowUri(ok(x));
    expect(buildWindowUri(ok(once))).toBe(once);
    expect(ok(once)).toStrictEqual(ok(x));
  });
  it('canonical form of a sample', () => {
    expect(canonicalWindowUri('window://h/%7e?x=1&priority=05&fullscreen=YES')).toBe('window://h/~?priority=5&fullscreen=true');
    expect(canonicalWindowUri('nope://h')).toBeUndefined();
  });
});

describe('helpers', () => {
  it('isWindowUri', () => {
    expect(isWindowUri('window://h')).toBe(true);
    expect(isWindowUri('file:///x')).toBe(false);
  });
  it('windowIdentity ignores the query', () => {
    expect(windowIdentity(ok('window://H/a%2Fb?priority=9&fullscreen=1'))).toBe('window://h/a%2Fb');
  });
});

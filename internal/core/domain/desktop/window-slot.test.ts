import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../shared/json.js';
import { parseWindowUri } from '../../../contract/desktop/window-uri.js';
import { SCAN_FULLSCREEN_SHIFT, SCAN_NO_PRIORITY, SCAN_SLOW, scanWindowUri } from './window-uri-scan.js';
import { renderWindow, windowFromResource } from './window-resource.js';
import { scratchSlot, windowSlot } from './window-slot.js';
import { must } from '../../../shared/must.js';

/** The spelled-out cases of docs/desktop.md plus common shapes. */
const EDGE_URIS = [
  'window://h',
  'window://h/',
  'window://h/a',
  'window://h/a/',
  'window://h//a',
  'window://h/a//b',
  'window://h/a//',
  'window://h//',
  'WINDOW://h',
  'Window://h',
  'window:h',
  'window:/h',
  'window://',
  'window:///a',
  'window://?priority=1',
  'window://Com.Example/X',
  'window://u@h/a',
  'window://h:80/a',
  'window://h%41/a',
  'window://[::1]/a',
  'window://hé/a',
  'window://h/a+b',
  'window://h/%E4%BE%8B',
  'window://h/例',
  'window://h/a%2',
  'window://h/a%zz',
  'window://h/100%',
  'window://h/%FF',
  'window://h/%C3',
  'window://h/a b',
  'window://h/a\tb',
  'window://h/a\u00a0b',
  'window://h/\ud800',
  'window://h/a#f',
  'window://h/a?priority=1#f',
  'window://h?',
  'window://h?&&priority=1&',
  'window://h?priority=1&priority=2',
  'window://h?priority=1&priority=1',
  'window://h?x=1&x=2&x',
  'window://h?Priority=5',
  'window://h?%70riority=5',
  'window://h?x=%G0',
  'window://h?priority',
  'window://h?priority=',
  'window://h?priority=05',
  'window://h?priority=007',
  'window://h?priority=%35',
  'window://h?priority=+5',
  'window://h?priority=%2B5',
  'window://h?priority=-1',
  'window://h?priority=101',
  'window://h?priority=100',
  'window://h?priority=0',
  'window://h?priority=99999999999999999999',
  'window://h?priority=1.5',
  'window://h?priority=1e1',
  'window://h?priority=0x10',
  'window://h?priority=%205',
  'window://h?fullscreen=TRUE',
  'window://h?fullscreen=Yes',
  'window://h?fullscreen=oN',
  'window://h?fullscreen=%20true',
  'window://h?fullscreen=true%20',
  'window://h?fullscreen',
  'window://h?fullscreen=',
  'window://h?fullscreen=t',
  'window://h?fullscreen=2',
  'window://h?fullscreen=false',
  'window://h?fullscreen=0&priority=9',
  'window://h?fullscreen=1&fullscreen=1',
  'window://h/a?priority=5=6',
  'window://h/a/b/c?fullscreen=off&x=y=z',
  'window://com.example.s1/main/tab%2F1?priority=37',
  'window://h/x%2fy?priority=50&fullscreen=true',
  'http://h/a',
  'window://h/a?q=?',
  'window://h/a?=',
  'window://h/?priority=3',
  'window://h/a%7E',
  'window://h/~a._-b',
];

/** Deterministic random URIs over an alphabet full of characters the grammar treats specially. */
function fuzzUris(count: number): string[] {
  let seed = 12345;
  const rnd = (k: number): number => Math.floor(((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * k);
  const parts = [
    'a',
    'Z',
    '9',
    '/',
    '//',
    '?',
    '&',
    '=',
    '%',
    '%2F',
    '%41',
    '%e4',
    '%zz',
    '#',
    ' ',
    '~',
    '.',
    '-',
    '+',
    'é',
    'priority',
    'priority=',
    'priority=7',
    'priority=100',
    'priority=101',
    'fullscreen=',
    'fullscreen=on',
    'fullscreen=No',
    'x=1',
  ];
  const prefixes = ['window://h', 'window://H.x', 'window://', 'Window://h', 'window:/h', 'window://h/'];
  return Array.from({ length: count }, () => {
    let s = must(prefixes[rnd(prefixes.length)], 'prefix');
    for (let k = rnd(8); k > 0; k--) s += must(parts[rnd(parts.length)], 'part');
    return s;
  });
}

describe('scanWindowUri agrees with parseWindowUri', () => {
  it('on every URI it answers for (edge cases and 4,000 random ones)', () => {
    let answered = 0;
    for (const uri of [...EDGE_URIS, ...fuzzUris(4000)]) {
      const scan = scanWindowUri(uri);
      if (scan === SCAN_SLOW) continue; // the parser decides; nothing to compare
      answered++;
      const parsed = parseWindowUri(uri);
      expect(parsed.ok, uri).toBe(true);
      if (!parsed.ok) continue;
      const p = scan & 0xff;
      expect(p === SCAN_NO_PRIORITY ? undefined : p, uri).toBe(parsed.value.priority);
      const f = scan >> SCAN_FULLSCREEN_SHIFT;
      expect(f === 0 ? undefined : f === 2, uri).toBe(parsed.value.fullscreen);
    }
    expect(answered).toBeGreaterThan(200);
  });

  it('takes the common well-formed URIs itself', () => {
    for (const uri of [
      'window://h',
      'window://h/',
      'window://com.example.s1/main/tab%2F1?priority=37',
      'window://a/f?fullscreen=true&priority=1',
      'window://h?x=1&priority=0',
    ]) {
      expect(scanWindowUri(uri), uri).not.toBe(SCAN_SLOW);
    }
    expect(scanWindowUri('window://a/f?fullscreen=true&priority=1')).toBe(1 | (2 << SCAN_FULLSCREEN_SHIFT));
  });

  it('leaves every invalid URI of the corpus to the parser', () => {
    const invalid = [...EDGE_URIS, ...fuzzUris(4000)].filter((u) => !parseWindowUri(u).ok);
    expect(invalid.length).toBeGreaterThan(100);
    for (const u of invalid) expect(scanWindowUri(u), u).toBe(SCAN_SLOW);
  });
});

describe('windowSlot agrees with windowFromResource', () => {
  const text = (t: string): JsonValue => ({ uri: 'x', text: t });
  const contentsCases: (JsonValue | undefined)[] = [
    undefined,
    null,
    [],
    [text('a')],
    [text('a'), text(''), text('b')],
    [{ blob: 'AA' }],
    [text('a'), { blob: 'AA' }, { uri: 'x' }],
    'nope',
    [null, 3],
  ];
  const resources: JsonValue[] = [
    ...EDGE_URIS.slice(0, 40),
    { uri: 'window://h/a?priority=5' },
    { uri: 'window://h/a', annotations: { priority: 0.505 } },
    { uri: 'window://h/a?priority=5', annotations: { priority: 0.2 }, _meta: { fullscreen: true } },
    { uri: 'window://h/a', _meta: { fullscreen: 'true' } },
    { uri: 42 },
    ['window://h'],
    null,
  ];
  it('for every resource × contents pair', () => {
    const scratch = scratchSlot();
    for (const resource of resources) {
      for (const contents of contentsCases) {
        const want = windowFromResource(resource, contents);
        const got = windowSlot(resource, contents, scratch);
        const label = JSON.stringify({ resource, contents });
        if (!want.ok) {
          expect(got.error, label).toBe(want.error);
          continue;
        }
        const w = want.value;
        expect(got.error, label).toBeUndefined();
        expect(
          {
            uri: got.uri,
            priority: got.priority,
            fullscreen: got.fullscreen,
            rendered: got.rendered,
            blobs: got.blobs,
            unrecognized: got.unrecognized,
            total: got.total,
            warnings: got.warnings,
          },
          label,
        ).toEqual({
          uri: w.uri,
          priority: w.priority,
          fullscreen: w.fullscreen,
          rendered: renderWindow(w.uri, w.contents.texts),
          blobs: w.contents.blobs,
          unrecognized: w.contents.unrecognized,
          total: w.contents.total,
          warnings: want.warnings,
        });
      }
    }
  });
});

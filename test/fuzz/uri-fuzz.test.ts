import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildWindowUri, parseWindowUri, type WindowUri } from '../../internal/contract/desktop/window-uri.js';
import { McpdError } from '../../internal/shared/errors.js';
import { buildDpeUri, type DpeSubPath } from '../../internal/docs-server/domain/dpe-uri-build.js';
import { parseDpeUri } from '../../internal/contract/finder/dpe-uri.js';
import { DpeError } from '../../internal/contract/finder/dpe-error.js';
import { anyCodeUnits, FUZZ, mutations } from './fuzz-support.js';

const hostChar = fc.constantFrom(...'abcXYZ019-._~'.split(''));
const host = fc.string({ unit: hostChar, minLength: 1, maxLength: 12 });
/** Well-formed Unicode text (full code points), the domain of names and IDs. */
const text = (minLength = 0) => fc.string({ unit: 'grapheme', minLength, maxLength: 16 });

const windowValue: fc.Arbitrary<WindowUri> = fc.record(
  {
    host,
    path: fc.array(text(1), { maxLength: 4 }),
    priority: fc.integer({ min: 0, max: 100 }),
    fullscreen: fc.boolean(),
  },
  { requiredKeys: ['host', 'path'] },
);
const validWindowUri = windowValue.map((v) => buildWindowUri(v));

describe('window:// fuzzing', () => {
  it('parse ∘ build is the identity (host lower-cased)', () => {
    fc.assert(
      fc.property(windowValue, (v) => {
        const r = parseWindowUri(buildWindowUri(v));
        expect(r).toEqual({ ok: true, value: { ...v, host: v.host.toLowerCase() } });
      }),
      FUZZ,
    );
  });

  it('parse never throws; whatever parses builds to a canonical URI that parses to the same value', () => {
    const input = fc.oneof(
      anyCodeUnits(60),
      mutations(validWindowUri),
      fc.string({ maxLength: 60 }).map((s) => `window://${s}`),
    );
    fc.assert(
      fc.property(input, (s) => {
        const r = parseWindowUri(s);
        if (!r.ok) {
          expect(r.error).toMatch(/^invalid window URI .*: ./s);
          return;
        }
        const canonical = buildWindowUri(r.value);
        expect(parseWindowUri(canonical)).toEqual(r);
        expect(buildWindowUri((parseWindowUri(canonical) as { value: WindowUri }).value)).toBe(canonical);
      }),
      FUZZ,
    );
  });

  it('build rejects bad fields only with INVALID_ARGUMENT naming the field', () => {
    const loose = fc.record({
      host: fc.oneof(host, anyCodeUnits(8)),
      path: fc.array(fc.oneof(text(), anyCodeUnits(6)), { maxLength: 3 }),
      priority: fc.option(fc.oneof(fc.integer({ min: -5, max: 105 }), fc.double()), { nil: undefined }),
    });
    fc.assert(
      fc.property(loose, (v) => {
        try {
          buildWindowUri(v);
        } catch (e) {
          expect(e).toBeInstanceOf(McpdError);
          expect((e as McpdError).reason).toBe('INVALID_ARGUMENT');
          expect((e as Error).message).toMatch(/^cannot build window URI: (host|path\[\d+\]|priority): /);
        }
      }),
      FUZZ,
    );
  });
});

const subPath: fc.Arbitrary<DpeSubPath> = fc.oneof(fc.record({ page: fc.nat({ max: 100_000 }) }), fc.record({ element: text(1) }));
const knownParams = fc.record(
  {
    format: fc.constantFrom('json', 'markdown', 'text'),
    depth: fc.constantFrom('metadata', 'pages'),
    offset: fc.nat({ max: 10_000 }),
    limit: fc.integer({ min: 1, max: 100 }),
  },
  { requiredKeys: [] },
);
/** Unknown query keys are kept as given (forward compatibility). */
const unknownParams = fc.dictionary(
  text(1).filter((k) => !['format', 'depth', 'offset', 'limit', 'categories'].includes(k)),
  text(),
  { maxKeys: 3 },
);
const dpeParts = fc.record(
  { host, docRef: text(1), subPath, known: knownParams, unknown: unknownParams },
  { requiredKeys: ['host', 'known', 'unknown'] },
);

function buildFrom(p: { host: string; docRef?: string; subPath?: DpeSubPath; known: object; unknown: Record<string, string> }): string {
  return buildDpeUri(p.host, p.docRef, p.docRef === undefined ? undefined : p.subPath, { ...p.unknown, ...p.known });
}

describe('dpe:// fuzzing', () => {
  it('parse ∘ build keeps host, doc-ref, sub-path and every query parameter', () => {
    fc.assert(
      fc.property(dpeParts, (p) => {
        const r = parseDpeUri(buildFrom(p));
        expect(r.host).toBe(p.host);
        expect(r.docRef).toBe(p.docRef);
        const sp = p.docRef === undefined ? undefined : p.subPath;
        expect(r.pageIndex).toBe(sp && 'page' in sp ? sp.page : undefined);
        expect(r.elementId).toBe(sp && 'element' in sp ? sp.element : undefined);
        expect(r.level).toBe(p.docRef === undefined ? 0 : sp === undefined ? 1 : 'page' in sp ? 2 : 3);
        for (const [k, v] of Object.entries({ ...p.unknown, ...p.known })) expect(r.queryParams[k]).toBe(String(v));
        for (const [k, v] of Object.entries(p.known)) expect(r.query[k as keyof typeof r.query]).toBe(v);
      }),
      FUZZ,
    );
  });

  it('parse never throws anything but the 4204 DpeError, which names the URI and the rule', () => {
    const input = fc.oneof(
      anyCodeUnits(60),
      mutations(dpeParts.map(buildFrom)),
      fc.string({ maxLength: 60 }).map((s) => `dpe://${s}`),
    );
    fc.assert(
      fc.property(input, (s) => {
        try {
          parseDpeUri(s);
        } catch (e) {
          expect(e).toBeInstanceOf(DpeError);
          expect((e as DpeError).code).toBe(4204);
          expect((e as Error).message).toMatch(/^Invalid DPE URI .*: (rule \d|URI syntax).* violated: .+; .+/s);
        }
      }),
      FUZZ,
    );
  });

  it('build never throws anything but the 4204 DpeError, whatever it is given', () => {
    const loose = fc.tuple(
      fc.oneof(host, anyCodeUnits(8)),
      fc.option(anyCodeUnits(8), { nil: undefined }),
      fc.option(fc.oneof(subPath, anyCodeUnits(12), fc.record({ page: fc.double() })), { nil: undefined }),
      fc.dictionary(anyCodeUnits(4), fc.oneof(anyCodeUnits(6), fc.double(), fc.array(anyCodeUnits(4), { maxLength: 2 }))),
    );
    fc.assert(
      fc.property(loose, ([h, docRef, sp, params]) => {
        try {
          const uri = buildDpeUri(h, docRef, sp as DpeSubPath | string | undefined, params);
          expect(uri.startsWith(`dpe://${h}`)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(DpeError);
          expect((e as DpeError).code).toBe(4204);
        }
      }),
      FUZZ,
    );
  });
});

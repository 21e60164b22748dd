import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GENESIS, argsDigestOf, chained, entryHash } from './audit-chain.js';
import type { AuditCallFields } from './audit-entry.js';

// Digests written by the plain recursive form (keys sorted at every level, joined by hand), before values
// already in key order were handed whole to JSON.stringify: logs written then must verify now.
const IN_ORDER = { a: 1, b: [true, null, 'x'], c: { d: 'é', e: 2.5 } };
const IN_ORDER_DIGEST = 'sha256:76c11f457e75ff933551289fc60a35e094a0ef5ce12acf60ce3cd83e0b11d799';

describe('audit chain: canonical JSON', () => {
  it('gives a value the digest of its keys sorted, whatever their order', () => {
    expect(argsDigestOf(IN_ORDER)).toBe(IN_ORDER_DIGEST);
    expect(argsDigestOf({ c: { e: 2.5, d: 'é' }, b: [true, null, 'x'], a: 1 })).toBe(IN_ORDER_DIGEST);
    const text = '{"a":1,"b":[true,null,"x"],"c":{"d":"é","e":2.5}}';
    expect(argsDigestOf(IN_ORDER)).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`);
  });

  it('sorts index-like keys as text, which objects keep first in numeric order', () => {
    expect(argsDigestOf({ 10: 'ten', 9: 'nine', a: { 2: 'two', 10: 'ten' } })).toBe(
      'sha256:bc75534107da97af689ce28283a23dde053f73365a260e11bd5c04da89b93703',
    );
  });

  it('leaves undefined members out, writes null for undefined in arrays and for functions and symbols', () => {
    expect(argsDigestOf({ b: undefined, a: [undefined, 1] })).toBe(
      'sha256:eb57380fc77099e358c30ebd17391cd25523428864604405a58cb4b2944f8562',
    );
    expect(argsDigestOf({ f: () => 1, d: new Date(0), s: Symbol('s') })).toBe(
      'sha256:d857d05b5e9c3ec4fbbf854ea2739dca6ee6f777ab61d6049b3d258f72cdd02f',
    );
    expect(argsDigestOf(undefined)).toBeNull();
  });

  it('chains an entry as before: the same line and hash, which the verifier recomputes', () => {
    const fields: AuditCallFields = {
      kind: 'call',
      time: '2026-11-29T08:00:00.000Z',
      caller: 'alice',
      face: 'session',
      client: null,
      method: 'tools/call',
      target: 'fs__read_file',
      outcome: 'ok',
      durationMs: 3,
      argsDigest: IN_ORDER_DIGEST,
    };
    const { entry, line } = chained(fields, 17, GENESIS);
    expect(entry.hash).toBe('af8a65683fbbf21920c5cc197a11882108b0c63db8252dd002ee30d2d1dc0e56');
    expect(line).toBe(
      `{"argsDigest":"${IN_ORDER_DIGEST}","caller":"alice","client":null,"durationMs":3,"face":"session","kind":"call",` +
        `"method":"tools/call","outcome":"ok","prev":"${GENESIS}","seq":17,"target":"fs__read_file",` +
        `"time":"2026-11-29T08:00:00.000Z","hash":"${entry.hash}"}`,
    );
    expect(entryHash(JSON.parse(line))).toBe(entry.hash);
  });
});

describe('audit chain: a call entry written field by field', () => {
  /** The canonical form by the plainest means: every object's keys sorted, then JSON.stringify. */
  const sortedDeep = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortedDeep)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sortedDeep((v as Record<string, unknown>)[k])]),
          )
        : v;

  // Required<…>: a field added to AuditCallFields must be added here, or this does not compile.
  const every: Required<AuditCallFields> = {
    kind: 'call',
    time: '2026-11-29T08:00:00.000Z',
    caller: 'al"ice\\',
    face: 'grpc',
    client: 'claude-code',
    method: 'tools/call',
    target: 'fs__read_file',
    via: 'call_tool',
    outcome: 'denied',
    message: 'refused: "x" \u2028 é\n',
    rule: 'no-writes',
    retryAfterMs: 1500,
    durationMs: 0.5,
    argsDigest: IN_ORDER_DIGEST,
    args: { z: [1, { b: 2, a: null }], a: 'é' },
  };
  const optional = ['via', 'message', 'rule', 'retryAfterMs', 'args'] as const;

  it('gives every combination of the optional fields, and nulls, the text and hash of the generic form', () => {
    for (let mask = 0; mask < 1 << optional.length; mask++) {
      const fields: AuditCallFields = { ...every, client: mask & 1 ? null : every.client, target: mask & 2 ? null : every.target };
      optional.forEach((k, i) => {
        if (mask & (1 << i)) delete fields[k];
      });
      const { entry, line } = chained(fields, 41 + mask, GENESIS);
      const text = JSON.stringify(sortedDeep({ ...fields, seq: 41 + mask, prev: GENESIS }));
      expect(line).toBe(`${text.slice(0, -1)},"hash":"${createHash('sha256').update(text).digest('hex')}"}`);
      expect(entryHash(JSON.parse(line))).toBe(entry.hash);
      expect(entry).toStrictEqual({ ...fields, seq: 41 + mask, prev: GENESIS, hash: entry.hash });
    }
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, paramsDigest } from './canonical-json.js';

describe('canonical JSON', () => {
  it('sorts keys at every depth, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, null, true])).toBe('[null,null,true]');
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
  });

  it('refuses what JSON cannot carry', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/non-finite/);
    expect(() => canonicalJson(1n)).toThrow(/bigint/);
  });

  it('is the same for any key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
        expect(JSON.parse(canonicalJson(obj))).toEqual(JSON.parse(JSON.stringify(obj)));
      }),
    );
  });
});

describe('paramsDigest', () => {
  const params = { target: { selector: { byRole: 'AXButton', titleContains: 'Send' } }, route: { app: { name: 'x' } } };

  it('is the first 16 hex of sha256 over the canonical allow-listed params', () => {
    const expected = createHash('sha256')
      .update('{"route":{"app":{"name":"x"}},"target":{"selector":{"byRole":"AXButton","titleContains":"Send"}}}')
      .digest('hex')
      .slice(0, 16);
    expect(paramsDigest('desktop.click', params)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
  });

  it('ignores meta, confirm and fields outside the allow-list, and key order', () => {
    const withExtras = { confirm: { phrase: 'CONFIRM' }, meta: { requestId: 'r' }, route: params.route, target: params.target, junk: 1 };
    expect(paramsDigest('desktop.click', withExtras)).toBe(paramsDigest('desktop.click', params));
  });

  it('changes with any allow-listed field', () => {
    const a = paramsDigest('desktop.typeText', { text: 'hello' });
    expect(paramsDigest('desktop.typeText', { text: 'hello!' })).not.toBe(a);
    expect(paramsDigest('desktop.typeText', { text: 'hello', options: { clearBefore: true } })).not.toBe(a);
    expect(paramsDigest('desktop.hotkey', { keys: ['ctrl', 'v'] })).not.toBe(paramsDigest('desktop.hotkey', { keys: ['v', 'ctrl'] }));
  });

  it('exists only for ui-control methods', () => {
    expect(() => paramsDigest('desktop.find', {})).toThrow(/takes no confirm token/);
  });
});

import { describe, expect, it } from 'vitest';
import { expectTypeOf } from 'vitest';
import { rawJsonOf, withRawJson, type WithRawJson } from './raw-json.js';

describe('raw JSON text kept with a parsed value', () => {
  it('gives back the text as received, for that very value only', () => {
    const text = '{ "b": 1,  "a": [1, 2] }';
    const value = withRawJson(JSON.parse(text) as object, text);
    expect(rawJsonOf(value)).toBe(text);
    expect(rawJsonOf(JSON.parse(text))).toBeUndefined();
    expect(rawJsonOf(null)).toBeUndefined();
    expect(rawJsonOf('{}')).toBeUndefined();
  });

  it('is invisible to serialisation and not carried by copies, which may be modified', () => {
    const text = '{"a":1}';
    const value = withRawJson(JSON.parse(text) as Record<string, unknown>, text);
    expect(JSON.stringify(value)).toBe('{"a":1}');
    expect(Object.keys(value)).toEqual(['a']);
    const copy = { ...value, b: 2 };
    expect(rawJsonOf(copy)).toBeUndefined();
    expect(rawJsonOf(Object.assign({}, value))).toBeUndefined();
    expect(value).toEqual({ a: 1 });
  });

  it('is a type: what withRawJson returns says it carries the text', () => {
    const value = withRawJson({ a: 1 }, '{"a":1}');
    expectTypeOf(value).toEqualTypeOf<WithRawJson<{ a: number }>>();
    expectTypeOf<{ a: number }>().not.toMatchTypeOf<WithRawJson<{ a: number }>>();
    expect(rawJsonOf(value)).toBe('{"a":1}');
  });
});

import { describe, expect, it } from 'vitest';
import { rememberJson, rememberedJson } from './raw-json.js';

describe('raw JSON text kept with a parsed value', () => {
  it('gives back the text as received, for that very value only', () => {
    const text = '{ "b": 1,  "a": [1, 2] }';
    const value = rememberJson(JSON.parse(text) as object, text);
    expect(rememberedJson(value)).toBe(text);
    expect(rememberedJson(JSON.parse(text))).toBeUndefined();
    expect(rememberedJson(null)).toBeUndefined();
    expect(rememberedJson('{}')).toBeUndefined();
  });

  it('is invisible to serialisation and not carried by copies, which may be modified', () => {
    const text = '{"a":1}';
    const value = rememberJson(JSON.parse(text) as Record<string, unknown>, text);
    expect(JSON.stringify(value)).toBe('{"a":1}');
    expect(Object.keys(value)).toEqual(['a']);
    const copy = { ...value, b: 2 };
    expect(rememberedJson(copy)).toBeUndefined();
    expect(rememberedJson(Object.assign({}, value))).toBeUndefined();
    expect(value).toEqual({ a: 1 });
  });
});

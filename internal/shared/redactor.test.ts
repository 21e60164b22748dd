import { describe, expect, it } from 'vitest';
import { Redactor } from './redactor.js';

describe('Redactor', () => {
  it('masks every known secret in text, the longest first, and regex characters literally', () => {
    const r = new Redactor();
    r.use(['abc', 'abcdef', 'a.b*c', 'x']);
    expect(r.text('abcdef abc a.b*c aXbc x')).toBe('*** *** *** aXbc x');
  });

  it('masks strings deep inside values, keys and error messages included, without touching the original', () => {
    const r = new Redactor();
    r.use(['s3cret']);
    const v = { a: ['--pw=s3cret', 3, null], s3cret: { e: new Error('bad s3cret') } };
    expect(r.value(v)).toEqual({ a: ['--pw=***', 3, null], '***': { e: 'bad ***' } });
    expect(v.a[0]).toBe('--pw=s3cret');
  });

  it('leaves values that are not plain objects as they are', () => {
    const r = new Redactor();
    r.use(['s3cret']);
    const when = new Date(0);
    const bytes = new Uint8Array([1, 2]);
    expect(r.value({ when, bytes, n: 1 })).toEqual({ when, bytes, n: 1 });
  });

  it('forgets the old secrets when given new ones', () => {
    const r = new Redactor();
    r.use(['first-secret']);
    r.use(['second-secret']);
    expect(r.text('first-secret second-secret')).toBe('first-secret ***');
  });
});

import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../shared/json.js';
import { annotationPriorityToScale, renderWindow, summarizeContents, windowFromResource } from './window-resource.js';

const text = (t: string): JsonValue => ({ uri: 'window://h', mimeType: 'text/plain', text: t });
const blob = { uri: 'window://h', blob: 'AAAA' };

function resolve(resource: JsonValue, contents: JsonValue = [text('x')]) {
  const r = windowFromResource(resource, contents);
  if (!r.ok) throw new Error(r.error);
  return r;
}

describe('summarizeContents', () => {
  it('missing or null contents are empty', () => {
    expect(summarizeContents(undefined)).toEqual({ ok: true, value: { texts: [], blobs: 0, unrecognized: 0, total: 0 } });
    expect(summarizeContents(null)).toMatchObject({ ok: true, value: { total: 0 } });
  });
  it('classifies text, blob and other items; empty texts are not kept', () => {
    const r = summarizeContents([text('a'), blob, text(''), { uri: 'x' }, 7, text('b')]);
    expect(r).toEqual({ ok: true, value: { texts: ['a', 'b'], blobs: 1, unrecognized: 2, total: 6 } });
  });
  it('an item with both text and blob counts as text', () => {
    expect(summarizeContents([{ text: 't', blob: 'AA' }])).toMatchObject({ value: { texts: ['t'], blobs: 0 } });
  });
  it('non-array contents fail', () => {
    expect(summarizeContents({ text: 'a' })).toMatchObject({ ok: false, error: expect.stringMatching(/must be an array/) });
  });
});

describe('windowFromResource: URI form', () => {
  it('takes priority and fullscreen from the URI query', () => {
    const r = resolve({ uri: 'window://h/a?priority=80&fullscreen=yes' });
    expect(r.value).toMatchObject({ priority: 80, prioritySource: 'uri', fullscreen: true, fullscreenSource: 'uri' });
    expect(r.warnings).toEqual([]);
  });
  it('defaults to priority 0 and not fullscreen', () => {
    expect(resolve('window://h').value).toMatchObject({
      priority: 0,
      prioritySource: 'default',
      fullscreen: false,
      fullscreenSource: 'default',
    });
  });
  it('keeps the URI exactly as sent', () => {
    expect(resolve({ uri: 'window://H/x%2fy' }).value.uri).toBe('window://H/x%2fy');
  });
  it('fails on an invalid URI or a resource without uri', () => {
    expect(windowFromResource({ uri: 'http://h' }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/scheme/) });
    expect(windowFromResource({ name: 'x' }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/string "uri"/) });
    expect(windowFromResource(42, [])).toMatchObject({ ok: false });
  });
  it('fails when contents is not an array', () => {
    expect(windowFromResource('window://h', 'text')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/window "window:\/\/h": contents/),
    });
  });
});

describe('windowFromResource: annotations / _meta form', () => {
  it('maps annotations.priority 0–1 to 0–100', () => {
    const r = resolve({ uri: 'window://h', annotations: { priority: 0.8 } });
    expect(r.value).toMatchObject({ priority: 80, prioritySource: 'annotations' });
  });
  it('keeps fractional priorities so 0.505 sorts above 0.5, and cancels float noise', () => {
    expect(annotationPriorityToScale(0.505)).toBe(50.5);
    expect(annotationPriorityToScale(0.07)).toBe(7);
    expect(annotationPriorityToScale(0)).toBe(0);
    expect(annotationPriorityToScale(1)).toBe(100);
  });
  it('takes fullscreen from _meta.fullscreen', () => {
    expect(resolve({ uri: 'window://h', _meta: { fullscreen: true } }).value).toMatchObject({ fullscreen: true, fullscreenSource: 'meta' });
  });
  it.each([
    ['above 1', 1.5],
    ['negative', -0.1],
    ['string', '0.5'],
    ['boolean', true],
  ])('ignores annotations.priority that is %s, with a warning', (_w, p) => {
    const r = resolve({ uri: 'window://h', annotations: { priority: p } });
    expect(r.value).toMatchObject({ priority: 0, prioritySource: 'default' });
    expect(r.warnings).toEqual([expect.stringMatching(/annotations.priority must be a number from 0 to 1/)]);
  });
  it('ignores a non-boolean _meta.fullscreen, with a warning', () => {
    const r = resolve({ uri: 'window://h', _meta: { fullscreen: 'true' } });
    expect(r.value.fullscreen).toBe(false);
    expect(r.warnings).toEqual([expect.stringMatching(/_meta.fullscreen must be a JSON boolean/)]);
  });
  it('ignores non-object annotations and _meta, with warnings', () => {
    const r = resolve({ uri: 'window://h', annotations: 3, _meta: [] });
    expect(r.warnings).toHaveLength(2);
  });
  it('null annotations / priority / _meta / fullscreen are simply absent', () => {
    const r = resolve({ uri: 'window://h', annotations: { priority: null }, _meta: null });
    expect(r.warnings).toEqual([]);
    expect(r.value.prioritySource).toBe('default');
  });
});

describe('windowFromResource: precedence', () => {
  it('the URI query wins over annotations and _meta, with a warning when they disagree', () => {
    const r = resolve({ uri: 'window://h?priority=10&fullscreen=false', annotations: { priority: 0.9 }, _meta: { fullscreen: true } });
    expect(r.value).toMatchObject({ priority: 10, prioritySource: 'uri', fullscreen: false, fullscreenSource: 'uri' });
    expect(r.warnings).toEqual([
      expect.stringMatching(/URI priority 10 overrides annotations.priority \(0.9\)/),
      expect.stringMatching(/URI fullscreen=false overrides _meta.fullscreen=true/),
    ]);
  });
  it('no warning when both forms agree', () => {
    const r = resolve({ uri: 'window://h?priority=7&fullscreen=1', annotations: { priority: 0.07 }, _meta: { fullscreen: true } });
    expect(r.warnings).toEqual([]);
  });
  it('each field falls back independently', () => {
    const r = resolve({ uri: 'window://h?fullscreen=0', annotations: { priority: 0.3 }, _meta: { fullscreen: true } });
    expect(r.value).toMatchObject({ priority: 30, prioritySource: 'annotations', fullscreen: false, fullscreenSource: 'uri' });
  });
});

describe('renderWindow', () => {
  it('URI, blank line, texts joined by blank lines', () => {
    expect(renderWindow('window://h', ['a', 'b'])).toBe('window://h\n\na\n\nb');
  });
  it('just the URI without text', () => {
    expect(renderWindow('window://h', [])).toBe('window://h');
  });
  it('texts are not trimmed', () => {
    expect(renderWindow('window://h', ['  x\n'])).toBe('window://h\n\n  x\n');
  });
});

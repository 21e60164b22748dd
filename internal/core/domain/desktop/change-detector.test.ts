import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../shared/json.js';
import { DesktopChangeDetector, supportsResourceSubscribe } from './change-detector.js';

const SUB: JsonObject = { resources: { subscribe: true, listChanged: true } };
const NOSUB: JsonObject = { resources: { listChanged: true } };

describe('supportsResourceSubscribe', () => {
  it.each([
    [SUB, true],
    [NOSUB, false],
    [{ resources: { subscribe: 'true' } }, false],
    [{ resources: true }, false],
    [{}, false],
    [undefined, false],
    [null, false],
  ])('%j → %s', (caps, want) => {
    expect(supportsResourceSubscribe(caps as JsonObject | undefined | null)).toBe(want);
  });
});

describe('DesktopChangeDetector.onListChanged', () => {
  it('first list with windows is a change; the same set again is not', () => {
    const d = new DesktopChangeDetector();
    expect(d.onListChanged('s', ['window://s/a', 'window://s/b'], SUB)).toBe(true);
    expect(d.onListChanged('s', ['window://s/b', 'window://s/a'], SUB)).toBe(false);
  });
  it('a first list without windows is not a change', () => {
    expect(new DesktopChangeDetector().onListChanged('s', ['file:///x'], SUB)).toBe(false);
  });
  it('an added window signals', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.onListChanged('s', ['window://s/a', 'window://s/b'], SUB)).toBe(true);
  });
  it('a removed window signals, including the last one', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a', 'window://s/b'], SUB);
    expect(d.onListChanged('s', ['window://s/a'], SUB)).toBe(true);
    expect(d.onListChanged('s', [], SUB)).toBe(true);
    expect(d.windowUris('s').size).toBe(0);
  });
  it('a swap with the same size signals', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.onListChanged('s', ['window://s/b'], SUB)).toBe(true);
  });
  it('changes in other schemes and invalid window URIs are ignored', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a', 'file:///1'], SUB);
    expect(d.onListChanged('s', ['window://s/a', 'file:///2', 'dpe://x', 'window://', 'WINDOW-ish'], SUB)).toBe(false);
    expect([...d.windowUris('s')]).toEqual(['window://s/a']);
  });
  it('URIs compare exactly as sent (a server re-casing a URI is a change)', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.onListChanged('s', ['window://S/a'], SUB)).toBe(true);
  });
  it('servers are tracked separately', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://x/a'], SUB);
    expect(d.onListChanged('t', ['window://x/a'], SUB)).toBe(true);
    expect(d.onListChanged('s', ['window://x/a'], SUB)).toBe(false);
  });
  it('a server without resources.subscribe never signals and its cache is dropped', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.onListChanged('s', ['window://s/a', 'window://s/b'], NOSUB)).toBe(false);
    expect(d.windowUris('s').size).toBe(0);
    expect(d.onListChanged('s', ['window://s/a'], SUB)).toBe(true);
  });
});

describe('DesktopChangeDetector.onUpdated', () => {
  it('a window URI of a subscribing server signals at once, known or not', () => {
    const d = new DesktopChangeDetector();
    expect(d.onUpdated('s', 'window://s/a', SUB)).toBe(true);
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.onUpdated('s', 'window://s/a', SUB)).toBe(true);
  });
  it('other schemes and invalid window URIs are ignored', () => {
    const d = new DesktopChangeDetector();
    expect(d.onUpdated('s', 'file:///a', SUB)).toBe(false);
    expect(d.onUpdated('s', 'window://', SUB)).toBe(false);
  });
  it('a server without resources.subscribe is ignored', () => {
    expect(new DesktopChangeDetector().onUpdated('s', 'window://s/a', NOSUB)).toBe(false);
  });
});

describe('DesktopChangeDetector.forget', () => {
  it('returns true when the server had windows, then starts afresh', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['window://s/a'], SUB);
    expect(d.forget('s')).toBe(true);
    expect(d.forget('s')).toBe(false);
    expect(d.onListChanged('s', ['window://s/a'], SUB)).toBe(true);
  });
  it('returns false for a server with no windows', () => {
    const d = new DesktopChangeDetector();
    d.onListChanged('s', ['file:///a'], SUB);
    expect(d.forget('s')).toBe(false);
  });
});

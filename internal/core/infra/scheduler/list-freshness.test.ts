import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../shared/json.js';
import { earliestFresh, freshUntil, ListFreshness, type AnsweringSession } from './list-freshness.js';

// The rule the metadata cache follows for a 2026-07-28 server's ttlMs (docs/eras.md).

const modern = (o: { listChanged?: boolean; hears?: boolean } = {}): AnsweringSession => ({
  protocolVersion: '2026-07-28',
  capabilities: { tools: { listChanged: o.listChanged ?? true }, prompts: {}, resources: { listChanged: o.listChanged ?? true } },
  hearsListChanges: o.hears ?? true,
});

describe('freshUntil', () => {
  it('a positive ttlMs: fresh that long, even when change notifications also cover the list', () => {
    expect(freshUntil('tools/list', { ttlMs: 500 }, modern(), 1000)).toBe(1500);
    expect(freshUntil('tools/list', { ttlMs: 500 }, modern({ listChanged: false }), 1000)).toBe(1500);
  });

  it('ttlMs 0 (or absent, negative, not an integer): until notified when notifications cover the list, else stale at once', () => {
    const pages: JsonObject[] = [{ ttlMs: 0 }, {}, { ttlMs: -5 }, { ttlMs: 1.5 }, { ttlMs: '600' }];
    for (const page of pages) {
      expect(freshUntil('tools/list', page, modern(), 1000)).toBeUndefined();
      expect(freshUntil('tools/list', page, modern({ listChanged: false }), 1000)).toBe(1000);
      expect(freshUntil('tools/list', page, modern({ hears: false }), 1000)).toBe(1000);
    }
    // prompts declares no listChanged here: its list is not covered however the stream went.
    expect(freshUntil('prompts/list', { ttlMs: 0 }, modern(), 1000)).toBe(1000);
  });

  it('a 2025 session’s lists are kept until the server says they changed, whatever they carry', () => {
    const legacy = { protocolVersion: '2025-11-25', capabilities: {}, hearsListChanges: true };
    expect(freshUntil('tools/list', { ttlMs: 5 }, legacy, 1000)).toBeUndefined();
    expect(freshUntil('tools/list', { ttlMs: 0 }, { capabilities: {} }, 1000)).toBeUndefined();
  });
});

describe('ListFreshness', () => {
  it('a list is as fresh as its least fresh page; a first page starts over', () => {
    const f = new ListFreshness();
    f.page('tools/list', {}, { ttlMs: 1000 }, modern(), 0);
    f.page('tools/list', { cursor: 'p2' }, { ttlMs: 300 }, modern(), 10);
    expect(f.stale('tools/list', 309)).toBe(false);
    expect(f.stale('tools/list', 310)).toBe(true);
    f.page('tools/list', {}, { ttlMs: 0 }, modern(), 400);
    expect(f.stale('tools/list', 10_000)).toBe(false);
    expect(f.stale('prompts/list', 10_000)).toBe(false);
  });

  it('tells the time left until a list goes stale: none without a TTL, 0 once stale', () => {
    const f = new ListFreshness();
    f.page('tools/list', {}, { ttlMs: 1000 }, modern(), 0);
    f.page('tools/list', { cursor: 'p2' }, { ttlMs: 300 }, modern(), 10);
    expect(f.freshForMs('tools/list', 100)).toBe(210);
    expect(f.freshForMs('tools/list', 310)).toBe(0);
    expect(f.freshForMs('tools/list', 5000)).toBe(0);
    expect(f.freshForMs('prompts/list', 100)).toBeUndefined();
    f.page('tools/list', {}, { ttlMs: 0 }, modern(), 400);
    expect(f.freshForMs('tools/list', 500)).toBeUndefined();
  });

  it('ignores what is not a cached list', () => {
    const f = new ListFreshness();
    f.page('tools/call', {}, { ttlMs: 0 }, modern({ listChanged: false }), 0);
    f.page('resources/read', {}, { ttlMs: 0 }, modern({ listChanged: false }), 0);
    expect(f.stale('tools/list', 5)).toBe(false);
  });
});

describe('earliestFresh', () => {
  it('the least time left among the lists with a TTL; none when no list has one', () => {
    expect(earliestFresh([undefined, 5000, 120, undefined, 0 + 900])).toBe(120);
    expect(earliestFresh([3, 0])).toBe(0);
    expect(earliestFresh([undefined, undefined])).toBeUndefined();
    expect(earliestFresh([])).toBeUndefined();
  });
});

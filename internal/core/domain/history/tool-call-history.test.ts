import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { CallerHistories, DEFAULT_HISTORY_CAPACITY, ToolCallHistory, type ToolCallRecord } from './tool-call-history.js';

function rec(server: string, i: number): ToolCallRecord {
  return {
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    req_id: `r${i}`,
    server,
    tool: 'echo',
    parameters: { i },
    timeout: 30,
    success: i % 2 === 0,
    error: i % 2 === 0 ? null : 'boom',
  };
}

describe('ToolCallHistory', () => {
  it('defaults to 200 records', () => {
    expect(new ToolCallHistory().capacity).toBe(DEFAULT_HISTORY_CAPACITY);
    expect(DEFAULT_HISTORY_CAPACITY).toBe(200);
  });
  it('keeps records in order, oldest first, and recent() newest first', () => {
    const h = new ToolCallHistory(5);
    [0, 1, 2].forEach((i) => h.record(rec('s', i)));
    expect(h.records().map((r) => r.req_id)).toEqual(['r0', 'r1', 'r2']);
    expect(h.recent().map((r) => r.req_id)).toEqual(['r2', 'r1', 'r0']);
    expect(h.recent(2).map((r) => r.req_id)).toEqual(['r2', 'r1']);
    expect(h.recent(0)).toEqual([]);
  });
  it('drops the oldest when full, across many wrap-arounds', () => {
    const h = new ToolCallHistory(3);
    for (let i = 0; i < 11; i++) h.record(rec('s', i));
    expect(h.size).toBe(3);
    expect(h.records().map((r) => r.req_id)).toEqual(['r8', 'r9', 'r10']);
  });
  it('keeps every field of the record', () => {
    const h = new ToolCallHistory();
    h.record(rec('srv', 1));
    expect(h.records()[0]).toEqual({
      timestamp: '2026-01-01T00:00:01.000Z',
      req_id: 'r1',
      server: 'srv',
      tool: 'echo',
      parameters: { i: 1 },
      timeout: 30,
      success: false,
      error: 'boom',
    });
  });
  it('returned arrays are copies', () => {
    const h = new ToolCallHistory();
    h.record(rec('s', 0));
    h.records().pop();
    expect(h.size).toBe(1);
  });
  it.each([0, -1, 1.5, Number.NaN])('rejects capacity %s', (c) => {
    expect(() => new ToolCallHistory(c)).toThrow(McpdError);
    expect(() => new CallerHistories(c)).toThrow(/positive integer/);
  });
  it('serverOrder uses the bounded window of records', () => {
    const h = new ToolCallHistory(2);
    h.record(rec('a', 0));
    h.record(rec('c', 1));
    h.record(rec('b', 2));
    expect(h.serverOrder(['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'a', 'd']);
  });
  it('clear empties it', () => {
    const h = new ToolCallHistory(2);
    h.record(rec('a', 0));
    h.record(rec('b', 1));
    h.record(rec('c', 2));
    h.clear();
    expect(h.records()).toEqual([]);
    h.record(rec('d', 3));
    expect(h.records().map((r) => r.server)).toEqual(['d']);
  });
});

describe('CallerHistories', () => {
  it('keeps one history per caller', () => {
    const c = new CallerHistories(10);
    c.record('alice', rec('a', 0));
    c.record('bob', rec('b', 1));
    c.record('alice', rec('c', 2));
    expect(
      c
        .get('alice')
        .records()
        .map((r) => r.server),
    ).toEqual(['a', 'c']);
    expect(
      c
        .get('bob')
        .records()
        .map((r) => r.server),
    ).toEqual(['b']);
    expect(c.callers().sort()).toEqual(['alice', 'bob']);
  });
  it('an unknown caller gets an empty history that is not stored', () => {
    const c = new CallerHistories(4);
    expect(c.get('nobody').size).toBe(0);
    expect(c.get('nobody').capacity).toBe(4);
    expect(c.callers()).toEqual([]);
  });
  it('applies its capacity to each caller, and forget drops a caller', () => {
    const c = new CallerHistories(2);
    for (let i = 0; i < 5; i++) c.record('x', rec('s', i));
    expect(c.get('x').size).toBe(2);
    c.forget('x');
    expect(c.get('x').size).toBe(0);
  });
});

describe('CallerHistories.onRecord', () => {
  it('tells listeners about each record, after it is stored, until removed', () => {
    const c = new CallerHistories(4);
    const seen: string[] = [];
    const off = c.onRecord((caller, r) => seen.push(`${caller}:${r.server}:${c.get(caller).size}`));
    c.record('alice', rec('a', 0));
    c.record('bob', rec('b', 1));
    off();
    c.record('alice', rec('c', 2));
    expect(seen).toEqual(['alice:a:1', 'bob:b:1']);
  });
  it('a throwing listener does not stop the record or other listeners', () => {
    const c = new CallerHistories(4);
    const seen: string[] = [];
    c.onRecord(() => {
      throw new Error('boom');
    });
    c.onRecord((caller) => seen.push(caller));
    expect(() => c.record('x', rec('a', 0))).not.toThrow();
    expect(seen).toEqual(['x']);
    expect(c.get('x').size).toBe(1);
  });
});

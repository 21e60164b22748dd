import { describe, expect, it } from 'vitest';
import { compareNames, serverOrder, serverRanks } from './server-order.js';

const h = (...servers: string[]) => servers.map((server) => ({ server }));

describe('serverOrder', () => {
  it('without history: all servers by name', () => {
    expect(serverOrder([], ['c', 'a', 'b'])).toEqual(['a', 'b', 'c']);
  });
  it('most recent call first, each server at its latest position', () => {
    expect(serverOrder(h('a', 'b', 'a', 'c'), ['a', 'b', 'c'])).toEqual(['c', 'a', 'b']);
  });
  it('servers never called follow, by name', () => {
    expect(serverOrder(h('m'), ['z', 'm', 'b'])).toEqual(['m', 'b', 'z']);
  });
  it('servers only in the history are left out', () => {
    expect(serverOrder(h('gone', 'a'), ['a', 'b'])).toEqual(['a', 'b']);
  });
  it('duplicate names in allServers count once', () => {
    expect(serverOrder([], ['b', 'a', 'b'])).toEqual(['a', 'b']);
  });
  it('names sort by code unit, not locale: upper case before lower, no accent folding', () => {
    expect(serverOrder([], ['b', 'B', 'a', 'é', 'e'])).toEqual(['B', 'a', 'b', 'e', 'é']);
    expect(compareNames('a', 'a')).toBe(0);
  });
  it('accepts any iterable, e.g. Map keys', () => {
    expect(
      serverOrder(
        h('y'),
        new Map([
          ['x', 1],
          ['y', 2],
        ]).keys(),
      ),
    ).toEqual(['y', 'x']);
  });
  it('serverRanks gives each server its index', () => {
    expect([...serverRanks(h('b'), ['a', 'b'])]).toEqual([
      ['b', 0],
      ['a', 1],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { reuseUnchanged } from './unchanged-tools.js';

const tool = (name: string, description: string) => ({ name, definition: { name, description, inputSchema: { type: 'object' } } });

describe('reuseUnchanged', () => {
  it('keeps the earlier object of every tool whose definition is the same, and takes the new one otherwise', () => {
    const before = [tool('a', 'A'), tool('b', 'B'), tool('gone', 'G')];
    const after = [tool('b', 'B'), tool('a', 'A changed'), tool('new', 'N')];
    const r = reuseUnchanged(before, after);
    expect(r.map((t) => t.name)).toEqual(['b', 'a', 'new']);
    expect(r[0]).toBe(before[1]);
    expect(r[1]).toBe(after[1]);
    expect(r[2]).toBe(after[2]);
  });

  it('takes the new list as it is when there was none, and ignores key order in definitions', () => {
    const after = [tool('a', 'A')];
    expect(reuseUnchanged(undefined, after)).toEqual(after);
    const reordered = { name: 'a', definition: { inputSchema: { type: 'object' }, description: 'A', name: 'a' } };
    expect(reuseUnchanged(after, [reordered])[0]).toBe(after[0]);
  });
});

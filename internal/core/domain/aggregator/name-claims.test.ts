import { describe, expect, it } from 'vitest';
import { resolveNameClaims, type NameClaim } from './name-claims.js';

const claim = (server: string, key: string, preferred: string, over: Partial<NameClaim> = {}): NameClaim => ({
  server,
  key,
  preferred,
  explicit: false,
  alternatives: [],
  ...over,
});

describe('resolveNameClaims', () => {
  it('does not depend on input order', () => {
    const claims = [claim('b', 'x', 'n', { alternatives: ['b_n'] }), claim('a', 'x', 'n', { alternatives: ['a_n'] }), claim('c', 'y', 'n')];
    const d = (c: NameClaim, i: number): string => `${c.server}-${c.key}-${i}`;
    const r1 = resolveNameClaims(claims, d);
    const r2 = resolveNameClaims([...claims].reverse(), d);
    expect(r1.names).toEqual(['b_n', 'n', 'c-y-0']);
    expect([...r2.names].reverse()).toEqual(r1.names);
    expect(r2.collisions).toEqual(r1.collisions);
  });

  it('an alternative already won by another claim is skipped, never taken from its winner', () => {
    const claims = [claim('a', 'k', 'shared', { alternatives: ['taken'] }), claim('b', 'k', 'shared'), claim('z', 'k', 'taken')];
    const r = resolveNameClaims(claims, (c, i) => `${c.server}${i}`);
    expect(r.names).toEqual(['shared', 'b0', 'taken']);
    const r2 = resolveNameClaims(
      [claim('b', 'k', 'shared', { alternatives: ['taken'] }), claim('a', 'k', 'shared'), claim('z', 'k', 'taken')],
      (c, i) => (i === 0 ? 'taken' : `${c.server}${i}`),
    );
    expect(r2.names).toEqual(['b1', 'shared', 'taken']);
  });

  it('items that cannot be renamed (URIs) are left out and reported, not lost silently', () => {
    const r = resolveNameClaims([claim('s2', 'file:///a', 'file:///a'), claim('s1', 'file:///a', 'file:///a')], () => undefined);
    expect(r.names).toEqual([undefined, 'file:///a']);
    expect(r.collisions).toEqual([
      { name: 'file:///a', servers: ['s1', 's2'], resolution: '"file:///a" kept by s1/file:///a; s2/file:///a left out (no free name)' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACE, type NamespacePolicy, type Profile } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { buildToolSnapshot } from './tool-snapshot.js';
import { spec, tool } from '../../../../test/support/aggregator.js';
import { must } from '../../../shared/must.js';

function profile(servers: ServerSpec[], namespace: NamespacePolicy = DEFAULT_NAMESPACE): Profile {
  return { name: 'p', file: '/p.yaml', servers, inputs: [], namespace };
}
const fp = (s: string): string => `fp-${s}`;
const never: NamespacePolicy = { ...DEFAULT_NAMESPACE, mode: 'never' };

describe('buildToolSnapshot', () => {
  it('namespaces, sorts and replaces only the name in definitions', () => {
    const s = buildToolSnapshot(
      profile([spec('b'), spec('a')]),
      fp,
      new Map([
        ['b', [tool('zeta'), tool('alpha')]],
        ['a', [tool('mid')]],
      ]),
    );
    expect(s.tools.map((t) => t.name)).toEqual(['a__mid', 'b__alpha', 'b__zeta']);
    const e = must(s.tools[1], 'second tool');
    expect(e).toMatchObject({ server: 'b', fingerprint: 'fp-b', downstreamName: 'alpha' });
    expect(e.definition).toEqual({ name: 'b__alpha', description: 'does alpha', inputSchema: { type: 'object' } });
    expect(e.definitionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(s.collisions).toEqual([]);
    expect(s.problems).toEqual([]);
    expect(Object.isFrozen(s) && Object.isFrozen(s.tools)).toBe(true);
  });

  it('applies disabled, exposeTools and forbiddenTools, and reports unknown names', () => {
    const p = profile([
      spec('off', { disabled: true }),
      spec('fs', { exposeTools: ['read', 'write', 'nope'], forbiddenTools: ['write'], toolMeta: { ghost: { alias: 'g' } } }),
    ]);
    const s = buildToolSnapshot(
      p,
      fp,
      new Map([
        ['off', [tool('x')]],
        ['fs', [tool('read'), tool('write'), tool('delete')]],
        ['not-in-profile', [tool('y')]],
      ]),
    );
    expect(s.tools.map((t) => t.name)).toEqual(['fs__read']);
    expect(s.problems?.map((p) => [p.kind, p.server, p.name])).toEqual([
      ['unknown-tool', 'fs', 'nope'],
      ['unknown-tool', 'fs', 'ghost'],
    ]);
    expect(s.problems?.[0]?.message).toMatch(/exposeTools names tool "nope", but server "fs" has no such tool/);
  });

  it('keeps the first of duplicate downstream tools and reports it', () => {
    const s = buildToolSnapshot(profile([spec('a')]), fp, new Map([['a', [tool('t', 'first'), tool('t', 'second')]]]));
    expect(s.tools).toHaveLength(1);
    expect(s.tools[0]?.definition.description).toBe('first');
    expect(s.problems?.[0]).toMatchObject({ kind: 'duplicate-tool', server: 'a', name: 't' });
  });

  it('applies aliases and reports invalid ones without using them', () => {
    const p = profile([spec('fs', { toolMeta: { read: { alias: 'read_it' }, write: { alias: 'bad alias!' } } })]);
    const s = buildToolSnapshot(p, fp, new Map([['fs', [tool('read'), tool('write')]]]));
    expect(s.tools.map((t) => [t.name, t.downstreamName])).toEqual([
      ['fs__write', 'write'],
      ['read_it', 'read'],
    ]);
    expect(s.problems).toHaveLength(1);
    expect(s.problems?.[0]).toMatchObject({ kind: 'invalid-alias', server: 'fs', name: 'write' });
    expect(s.problems?.[0]?.message).toMatch(/exposed as "fs__write"/);
  });

  it('never mode: the server that sorts first keeps the raw name, others get the prefixed one, all reported', () => {
    const p = profile([spec('zeta'), spec('alpha'), spec('mid')], never);
    const tools = new Map([
      ['zeta', [tool('search'), tool('only_z')]],
      ['alpha', [tool('search')]],
      ['mid', [tool('search')]],
    ]);
    const s = buildToolSnapshot(p, fp, tools);
    const byName = Object.fromEntries(s.tools.map((t) => [t.name, t.server]));
    expect(byName).toEqual({ search: 'alpha', mid__search: 'mid', zeta__search: 'zeta', only_z: 'zeta' });
    expect(s.collisions).toHaveLength(1);
    expect(s.collisions[0]?.name).toBe('search');
    expect(s.collisions[0]?.servers).toEqual(['alpha', 'mid', 'zeta']);
    expect(s.collisions[0]?.resolution).toMatch(
      /kept by alpha\/search.*mid\/search exposed as "mid__search".*zeta\/search exposed as "zeta__search"/,
    );
    // Input order does not matter.
    const reversed = buildToolSnapshot(profile([spec('mid'), spec('alpha'), spec('zeta')], never), fp, new Map([...tools].reverse()));
    expect(reversed.etag).toBe(s.etag);
    expect(reversed.collisions).toEqual(s.collisions);
  });

  it('prefix mode: names that meet after sanitising or via an alias are all kept and reported', () => {
    // "a" + "b__c" and "a__b" + "c" both want "a__b__c"; "x.y" and "x_y" both sanitise to "x_y".
    const p = profile([spec('a'), spec('a__b', { toolMeta: { c: { alias: 'a__b__c' } } }), spec('s')]);
    const s = buildToolSnapshot(
      p,
      fp,
      new Map([
        ['a', [tool('b__c')]],
        ['a__b', [tool('c')]],
        ['s', [tool('x.y'), tool('x_y')]],
      ]),
    );
    expect(s.tools).toHaveLength(4);
    expect(new Set(s.tools.map((t) => t.name)).size).toBe(4);
    const owner = (n: string): string | undefined => s.tools.find((t) => t.name === n)?.server;
    expect(owner('a__b__c')).toBe('a__b'); // the alias wins over a derived name
    expect(s.collisions.map((c) => c.name)).toEqual(['a__b__c', 's__x_y']);
    for (const t of s.tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const loser = s.tools.find((t) => t.server === 'a');
    expect(loser?.name).toMatch(/^a__b__c-[0-9a-f]{8}$/);
    expect(s.collisions[0]?.resolution).toContain(`a/b__c exposed as "${loser?.name}"`);
  });

  it('etag is stable for the same input and changes with names, definitions and owners', () => {
    const p = profile([spec('a'), spec('b')]);
    const base = new Map([
      ['a', [tool('t')]],
      ['b', [tool('u')]],
    ]);
    const e0 = buildToolSnapshot(p, fp, base).etag;
    expect(e0).toMatch(/^[0-9a-f]{16}$/);
    // Key order inside a definition does not matter.
    const reordered: DownstreamTool = { name: 't', definition: { inputSchema: { type: 'object' }, description: 'does t', name: 't' } };
    expect(
      buildToolSnapshot(
        p,
        fp,
        new Map([
          ['a', [reordered]],
          ['b', [tool('u')]],
        ]),
      ).etag,
    ).toBe(e0);
    expect(buildToolSnapshot(p, (s) => `other-${s}`, base).etag).toBe(e0);
    expect(
      buildToolSnapshot(
        p,
        fp,
        new Map([
          ['a', [tool('t', 'changed')]],
          ['b', [tool('u')]],
        ]),
      ).etag,
    ).not.toBe(e0);
    expect(buildToolSnapshot(p, fp, new Map([['a', [tool('t')]]])).etag).not.toBe(e0);
    const aliased = profile([spec('a', { toolMeta: { t: { alias: 'tt' } } }), spec('b')]);
    expect(buildToolSnapshot(aliased, fp, base).etag).not.toBe(e0);
  });

  it('keeps long names within budget and distinct', () => {
    const long = 'very_long_tool_name_'.repeat(4);
    const s = buildToolSnapshot(
      profile([spec('server-with-a-long-name')]),
      fp,
      new Map([['server-with-a-long-name', [tool(`${long}1`), tool(`${long}2`)]]]),
    );
    expect(s.tools.map((t) => t.name.length)).toEqual([64, 64]);
    expect(s.tools[0]?.name).not.toBe(s.tools[1]?.name);
    expect(s.collisions).toEqual([]);
  });
});

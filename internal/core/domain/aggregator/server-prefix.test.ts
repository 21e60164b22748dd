import { describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACE, type NamespacePolicy, type Profile } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { sha256Hex } from '../../../contract/model/naming.js';
import { buildToolSnapshot } from './tool-snapshot.js';
import { buildPromptSnapshot } from './prompt-snapshot.js';
import { spec, tool } from '../../../../test/support/aggregator.js';

function profile(servers: ServerSpec[], namespace: NamespacePolicy = DEFAULT_NAMESPACE): Profile {
  return { name: 'p', file: '/p.yaml', servers, inputs: [], namespace };
}
const fp = (s: string): string => `fp-${s}`;
const claudeCode: NamespacePolicy = { ...DEFAULT_NAMESPACE, reserve: 11 };
// 36 characters; the cut falls right after a dash, where the old per-tool prefix left `--`.
const SERVER = 'mcp-serv-knowledge-base-document-srv';
const TOOLS = ['echo', 'add', 'get_resource_reference', 'toggle-sidebar-section-visibility', 'annotatedMessage'];
const prefixOf = (name: string) => name.slice(0, name.indexOf('__'));

describe('one server keeps one prefix across its names', () => {
  it('the issue case: a long server name and tools of different lengths get ONE prefix, without `--`', () => {
    const s = buildToolSnapshot(profile([spec(SERVER)], claudeCode), fp, new Map([[SERVER, TOOLS.map((n) => tool(n))]]));
    const names = s.tools.map((t) => t.name);
    expect(names).toHaveLength(TOOLS.length);
    expect(new Set(names.map(prefixOf)).size).toBe(1);
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(64 - 11);
      expect(n).not.toContain('--');
      expect(n).toMatch(/^[a-zA-Z0-9_-]+$/);
    }
    // Fitted to the longest tool (33 characters): 53 − 2 − 33 = 18 = 9 of head (`mcp-serv-`, its dash dropped) + `-` + 8 hex.
    expect(prefixOf(names[0] ?? '')).toBe(`mcp-serv-${sha256Hex(SERVER).slice(0, 8)}`);
    expect(names.map((n) => n.slice(n.indexOf('__') + 2)).sort()).toEqual([...TOOLS].sort());
    // Every name leads back to its server and tool: the reverse lookup reads the snapshot.
    for (const t of s.tools) expect(t.name).toBe(`${prefixOf(t.name)}__${t.downstreamName}`);
  });

  it('a server whose names all fit keeps its whole name as the prefix', () => {
    const s = buildToolSnapshot(profile([spec('fs')], claudeCode), fp, new Map([['fs', TOOLS.map((n) => tool(n))]]));
    expect(new Set(s.tools.map((t) => prefixOf(t.name)))).toEqual(new Set(['fs']));
  });

  it('a tool too long for any prefix is cut behind the same prefix and does not shorten the others', () => {
    const huge = 'x'.repeat(70);
    const s = buildToolSnapshot(
      profile([spec('github_enterprise')], claudeCode),
      fp,
      new Map([['github_enterprise', [tool(huge), tool('get_me')]]]),
    );
    expect(s.tools.map((t) => t.name).sort()).toEqual([
      'github_enterprise__get_me',
      `github_enterprise__${'x'.repeat(53 - 19 - 9)}-${sha256Hex(`github_enterprise__${huge}`).slice(0, 8)}`,
    ]);
  });

  it('a longer tool appearing re-fits the prefix of every tool of that server (and only that server)', () => {
    const before = buildToolSnapshot(
      profile([spec(SERVER), spec('fs')], claudeCode),
      fp,
      new Map([
        [SERVER, [tool('echo')]],
        ['fs', [tool('read')]],
      ]),
    );
    const after = buildToolSnapshot(
      profile([spec(SERVER), spec('fs')], claudeCode),
      fp,
      new Map([
        [SERVER, [tool('echo'), tool('toggle-sidebar-section-visibility')]],
        ['fs', [tool('read')]],
      ]),
    );
    expect(before.tools.map((t) => t.name)).toEqual(['fs__read', 'mcp-serv-knowledge-base-document-srv__echo']);
    const names = after.tools.map((t) => t.name);
    expect(new Set(names.filter((n) => !n.startsWith('fs__')).map(prefixOf)).size).toBe(1);
    expect(names).toContain('fs__read');
    expect(names).toContain(`mcp-serv-${sha256Hex(SERVER).slice(0, 8)}__echo`);
  });

  it('two long servers sharing a head still get distinct prefixes', () => {
    const a = `${SERVER}-a`;
    const b = `${SERVER}-b`;
    const tools = [tool('echo'), tool('toggle-sidebar-section-visibility')];
    const s = buildToolSnapshot(
      profile([spec(a), spec(b)], claudeCode),
      fp,
      new Map([
        [a, tools],
        [b, tools],
      ]),
    );
    const prefixes = new Map(s.tools.map((t) => [t.server, prefixOf(t.name)]));
    expect(prefixes.get(a)).not.toBe(prefixes.get(b));
    expect(new Set(s.tools.map((t) => t.name)).size).toBe(4);
    expect(s.collisions).toEqual([]);
  });

  it('prompts of a server share one prefix the same way', () => {
    const prompts = TOOLS.map((name) => ({ name }));
    const s = buildPromptSnapshot(profile([spec(SERVER)], claudeCode), fp, new Map([[SERVER, prompts]]));
    expect(new Set(s.prompts.map((p) => prefixOf(p.name)))).toEqual(new Set([`mcp-serv-${sha256Hex(SERVER).slice(0, 8)}`]));
  });
});

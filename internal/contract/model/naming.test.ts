import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import {
  aliasProblem,
  chooseToolName,
  exposedToolName,
  fitName,
  prefixedName,
  prefixFitLength,
  sanitizeName,
  serverPrefix,
  sha256Hex,
} from './naming.js';
import type { NamespacePolicy } from './profile.js';

const prefix: NamespacePolicy = { mode: 'prefix', separator: '__', maxLength: 64 };
const never: NamespacePolicy = { mode: 'never', separator: '__', maxLength: 64 };

describe('exposedToolName', () => {
  it('prefixes with server and separator', () => {
    expect(exposedToolName('fs', 'read_file', prefix)).toBe('fs__read_file');
    expect(exposedToolName('fs', 'read_file', { ...prefix, separator: '-' })).toBe('fs-read_file');
  });

  it('keeps a name of exactly maxLength untouched and shortens one character more to exactly maxLength', () => {
    const server = 's';
    const exact = 'x'.repeat(64 - 3);
    expect(exposedToolName(server, exact, prefix)).toBe(`s__${exact}`);
    const over = `${exact}y`;
    const short = exposedToolName(server, over, prefix);
    expect(short).toHaveLength(64);
    expect(short).toBe(`s__${over}`.slice(0, 55) + '-' + sha256Hex(`s__${over}`).slice(0, 8));
  });

  it('respects other budgets exactly and is deterministic', () => {
    for (const max of [16, 20, 33, 64, 100]) {
      const name = exposedToolName('a-rather-long-server-name', 'an_even_longer_tool_name_'.repeat(5), { ...prefix, maxLength: max });
      expect(name.length).toBe(max);
      expect(exposedToolName('a-rather-long-server-name', 'an_even_longer_tool_name_'.repeat(5), { ...prefix, maxLength: max })).toBe(name);
    }
  });

  it('gives different long names different shortened names even when their heads agree', () => {
    const long = 'y'.repeat(80);
    const a = exposedToolName('srv', `${long}_one`, prefix);
    const b = exposedToolName('srv', `${long}_two`, prefix);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
    expect(a).not.toBe(b);
  });

  it('sanitises to [a-zA-Z0-9_-]', () => {
    expect(exposedToolName('my.server', 'read file/v2', prefix)).toBe('my_server__read_file_v2');
    expect(exposedToolName('s', 'ok', { ...prefix, separator: '.' })).toBe('s_ok');
    expect(sanitizeName('é€')).toBe('__');
    expect(sanitizeName('')).toBe('_');
    for (const n of [exposedToolName('ü'.repeat(40), 'ß'.repeat(40), prefix), fitName('a b'.repeat(50), 64)]) {
      expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
  });

  it('uses a valid alias and rejects an invalid one with a reason', () => {
    expect(exposedToolName('fs', 'read_file', prefix, { alias: 'read' })).toBe('read');
    const bad = chooseToolName('fs', 'read_file', prefix, { alias: 'read file' });
    expect(bad).toMatchObject({ name: 'fs__read_file', source: 'prefixed' });
    expect(bad.aliasRejected).toMatch(/outside \[a-zA-Z0-9_-\]/);
    const long = chooseToolName('fs', 'read_file', prefix, { alias: 'a'.repeat(65) });
    expect(long.name).toBe('fs__read_file');
    expect(long.aliasRejected).toMatch(/65 characters long; the limit is 64/);
    expect(aliasProblem('', 64)).toMatch(/empty/);
    expect(aliasProblem('ok-alias_1', 64)).toBeUndefined();
  });

  it('never mode exposes the raw name (sanitised and within budget)', () => {
    expect(exposedToolName('fs', 'read_file', never)).toBe('read_file');
    expect(exposedToolName('fs', 'a.b', never)).toBe('a_b');
    expect(exposedToolName('fs', 'z'.repeat(70), never)).toHaveLength(64);
  });

  it('refuses a budget too small to keep a readable head', () => {
    expect(() => exposedToolName('s', 't', { ...prefix, maxLength: 8 })).toThrow(McpdError);
    expect(() => exposedToolName('s', 't', { ...prefix, maxLength: 8 })).toThrow(/namespace.maxLength is 8/);
  });
});

describe('prefixedName shortens the server prefix before the tool name', () => {
  const server = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,59}$/);
  const tool = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,69}$/);
  const policy = fc.record({
    mode: fc.constant('prefix' as const),
    separator: fc.constantFrom('__', '_', '.'),
    maxLength: fc.constantFrom(64, 48, 32),
    reserve: fc.integer({ min: 0, max: 16 }),
  });

  it('the issue case: a long server keeps the tool name whole under Claude Code’s reserve', () => {
    const p: NamespacePolicy = { ...prefix, reserve: 11 };
    const name = prefixedName('mcp-server-knowledge-base', 'toggle-sidebar-section-visibility', p);
    expect(name).toBe(`mcp-serve-${sha256Hex('mcp-server-knowledge-base').slice(0, 8)}__toggle-sidebar-section-visibility`);
    expect(name).toHaveLength(53);
  });

  it('every name fits the budget, is deterministic, and distinct tools get distinct names', () => {
    fc.assert(
      fc.property(
        policy,
        fc.uniqueArray(fc.tuple(server, tool), { minLength: 1, maxLength: 30, selector: ([s, t]) => `${s}\u0000${t}` }),
        (p, pairs) => {
          const budget = p.maxLength - p.reserve;
          const names = pairs.map(([s, t]) => prefixedName(s, t, p));
          for (const n of names) {
            expect(n.length).toBeLessThanOrEqual(budget);
            expect(n).toMatch(/^[a-zA-Z0-9_-]+$/);
          }
          expect(pairs.map(([s, t]) => prefixedName(s, t, p))).toEqual(names);
          // Distinct once sanitised ("." becomes "_" in a separator, so compare what the names stand for).
          const meant = new Set(pairs.map(([s, t]) => `${s}${p.separator.replace('.', '_')}${t}`));
          expect(new Set(names).size).toBe(meant.size);
        },
      ),
    );
  });

  it('keeps a server name shorter than the hash whole, even beside a tool too long to fit behind the hash', () => {
    // Found by the property below (seed 1739075528): budget 17, the tool 8 characters, the server 6.
    const p = { mode: 'prefix', separator: '__', maxLength: 32, reserve: 15 } as const;
    expect(prefixedName('00-00-', 'a_---00_', p)).toBe('00-00-__a_---00_');
  });

  it('keeps the tool name whole whenever the tool and 8 characters of server hash fit', () => {
    fc.assert(
      fc.property(policy, server, tool, (p, s, t) => {
        const sep = p.separator.replace('.', '_');
        const name = prefixedName(s, t, p);
        if (`${s}${sep}${t}`.length <= p.maxLength - p.reserve) expect(name).toBe(`${s}${sep}${t}`);
        else if (t.length + sep.length + 8 <= p.maxLength - p.reserve) {
          expect(name.endsWith(`${sep}${t}`)).toBe(true);
          expect(name.slice(0, -(sep.length + t.length))).toMatch(new RegExp(`(^|-)${sha256Hex(s).slice(0, 8)}$`));
        }
      }),
    );
  });

  it('fitted to a server’s whole list, every name of it shares one prefix, without a cut left dangling', () => {
    fc.assert(
      fc.property(policy, server, fc.uniqueArray(tool, { minLength: 1, maxLength: 12 }), (p, s, tools) => {
        const fit = prefixFitLength(tools, p);
        const prefix = serverPrefix(s, fit, p);
        const sep = p.separator.replace('.', '_');
        expect(prefix === s || !/[-_]-[0-9a-f]{8}$/.test(prefix)).toBe(true);
        const budget = p.maxLength - p.reserve;
        for (const t of tools) {
          const name = prefixedName(s, t, p, fit);
          // A cut name keeps the prefix whenever the budget holds the bare hash, the separator and a cut
          // name's least (a character and `-` + 8 hex): 20 with `__`. Below that the cut reaches into it.
          if (budget >= 8 + sep.length + 10 || name === `${prefix}${sep}${t}`) expect(name.startsWith(`${prefix}${sep}`)).toBe(true);
          expect(name.length).toBeLessThanOrEqual(budget);
          // Whole whenever the name fits behind the bare hash.
          if (t.length + sep.length + 8 <= budget) expect(name).toBe(`${prefix}${sep}${t}`);
        }
      }),
    );
  });
});

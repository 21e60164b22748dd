import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import { aliasProblem, chooseToolName, exposedToolName, fitName, sanitizeName, sha256Hex } from './naming.js';
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

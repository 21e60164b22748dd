import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadStore } from '../../internal/contract/store/index.js';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

afterEach(removeHomes);

const reserveOf = (file: string) => (parse(readFileSync(file, 'utf8')) as { namespace?: { reserve?: number } }).namespace?.reserve;

describe('connect sets the namespace.reserve each client’s tool-name prefix needs, per caller', () => {
  it.each([
    ['claude-code', 11, 'mcp__mcpd__<tool>, 64 characters at most'],
    ['codex', 11, 'mcp__mcpd__<tool>, 64 characters at most'],
    ['gemini-cli', 10, 'mcp_mcpd_<tool>, 63 characters at most'],
  ])('%s: reserve %i in the caller’s profile, comments kept, said in the output; idempotent', async (client, reserve, why) => {
    const { home, store } = tempHome();
    const profile = writeAt(store, 'profiles/work.yaml', '# my work servers\nservers: []  # none yet\n');
    writeAt(store, 'callers.yaml', `callers:\n  ${client}: work\n`);
    const dry = await ctl(home, ['connect', client, '--config', store, '--dry-run']);
    expect(dry.stdout).toContain(
      `namespace.reserve: 0 → ${reserve} in profile "work" (${profile}) (dry run, not written): ${client} shows tools as ${why}`,
    );
    expect(reserveOf(profile)).toBeUndefined();
    const r = await ctl(home, ['connect', client, '--config', store]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`namespace.reserve: 0 → ${reserve} in profile "work" (${profile}): ${client} shows tools as ${why}`);
    expect(reserveOf(profile)).toBe(reserve);
    expect(readFileSync(profile, 'utf8')).toContain('# my work servers');
    expect(readFileSync(join(store, 'profiles', 'default.yaml'), 'utf8')).toBe('servers: []\n');
    const again = await ctl(home, ['connect', client, '--config', store]);
    expect(again.stdout).toContain(`namespace.reserve: ${reserve} in profile "work" (${profile}) already leaves room`);
    const loaded = await loadStore(store, { env: process.env, scaffold: false });
    expect(loaded.ok && loaded.store.profiles.get('work')?.namespace.reserve).toBe(reserve);
  });

  it('never lowers a reserve, follows the profile’s maxLength, names the shared default profile, and leaves clients without a prefix rule alone', async () => {
    const { home, store } = tempHome();
    const work = writeAt(store, 'profiles/work.yaml', 'namespace: { reserve: 20 }\nservers: []\n');
    const short = writeAt(store, 'profiles/short.yaml', 'namespace: { maxLength: 48 }\nservers: []\n');
    writeAt(store, 'callers.yaml', 'callers:\n  claude-code: work\n  codex: short\n');
    expect((await ctl(home, ['connect', 'claude-code', '--config', store])).stdout).toContain('namespace.reserve: 20 in profile "work"');
    expect(reserveOf(work)).toBe(20);
    // 48 characters of names plus mcp__mcpd__ fit Codex's 64: nothing to reserve.
    expect((await ctl(home, ['connect', 'codex', '--config', store])).stdout).toContain('namespace.reserve: 0 in profile "short"');
    expect(reserveOf(short)).toBeUndefined();
    const g = await ctl(home, ['connect', 'gemini-cli', '--config', store]);
    expect(g.stdout).toContain('callers.yaml does not map this caller, so every caller of "default" gets the shorter names');
    expect(reserveOf(join(store, 'profiles', 'default.yaml'))).toBe(10);
    const c = await ctl(home, ['connect', 'cursor', '--config', store]);
    expect(c.code).toBe(0);
    expect(c.stdout).not.toContain('namespace.reserve');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadStore } from '../../internal/store/index.js';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

afterEach(removeHomes);

type Callers = { callers?: Record<string, string | { profile: string; reserve?: number }> };
const callersOf = (store: string) => (parse(readFileSync(join(store, 'callers.yaml'), 'utf8')) as Callers).callers ?? {};
const reserveOf = (file: string) => (parse(readFileSync(file, 'utf8')) as { namespace?: { reserve?: number } }).namespace?.reserve;

describe('connect gives each caller the reserve its client’s tool-name prefix needs, in callers.yaml', () => {
  it.each([
    ['claude-code', 11, 'mcp__mcpd__<tool>, 64 characters at most'],
    ['codex', 11, 'mcp__mcpd__<tool>, 64 characters at most'],
    ['gemini-cli', 10, 'mcp_mcpd_<tool>, 63 characters at most'],
  ])(
    '%s: reserve %i for the caller, its profile untouched, comments kept, said in the output; idempotent',
    async (client, reserve, why) => {
      const { home, store } = tempHome();
      const profile = writeAt(store, 'profiles/work.yaml', '# my work servers\nservers: []  # none yet\n');
      const callers = writeAt(store, 'callers.yaml', `# who gets what\ncallers:\n  ${client}: work  # mine\n  other: work\n`);
      const who = `caller "${client}" (profile "work") in ${callers}`;
      const dry = await ctl(home, ['connect', client, '--config', store, '--dry-run']);
      expect(dry.stdout).toContain(`reserve: 0 → ${reserve} for ${who} (dry run, not written): ${client} shows tools as ${why}`);
      expect(callersOf(store)[client]).toBe('work');
      const r = await ctl(home, ['connect', client, '--config', store]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`reserve: 0 → ${reserve} for ${who}: ${client} shows tools as ${why}`);
      expect(callersOf(store)).toEqual({ [client]: { profile: 'work', reserve }, other: 'work' });
      expect(readFileSync(callers, 'utf8')).toContain('# who gets what');
      expect(reserveOf(profile)).toBeUndefined();
      expect(readFileSync(profile, 'utf8')).toBe('# my work servers\nservers: []  # none yet\n');
      const again = await ctl(home, ['connect', client, '--config', store]);
      expect(again.stdout).toContain(`reserve: ${reserve} for ${who} already leaves room`);
      const loaded = await loadStore(store, { env: process.env, scaffold: false });
      if (!loaded.ok) throw new Error('the store does not load');
      expect(loaded.store.callerReserves?.get(client)).toBe(reserve);
      expect(loaded.store.callerReserves?.has('other')).toBe(false);
      expect(loaded.store.profiles.get('work')?.namespace.reserve).toBeUndefined();
    },
  );

  it('never lowers a reserve, follows the profile’s maxLength, maps an unmapped caller to default explicitly, and leaves clients without a prefix rule alone', async () => {
    const { home, store } = tempHome();
    writeAt(store, 'profiles/work.yaml', 'namespace: { reserve: 20 }\nservers: []\n');
    writeAt(store, 'profiles/short.yaml', 'namespace: { maxLength: 48 }\nservers: []\n');
    writeAt(store, 'callers.yaml', 'callers:\n  claude-code: work\n  codex: short\n');
    expect((await ctl(home, ['connect', 'claude-code', '--config', store])).stdout).toContain(
      `reserve: 20 (profile "work"'s namespace.reserve) for caller "claude-code" (profile "work")`,
    );
    // 48 characters of names plus mcp__mcpd__ fit Codex's 64: nothing to reserve.
    expect((await ctl(home, ['connect', 'codex', '--config', store])).stdout).toContain(
      `reserve: 0 (profile "short"'s namespace.reserve) for caller "codex" (profile "short")`,
    );
    const g = await ctl(home, ['connect', 'gemini-cli', '--config', store]);
    expect(g.stdout).toContain('callers.yaml did not map this caller: it now maps it to "default" explicitly');
    expect(callersOf(store)).toEqual({ 'claude-code': 'work', codex: 'short', 'gemini-cli': { profile: 'default', reserve: 10 } });
    expect(reserveOf(join(store, 'profiles', 'default.yaml'))).toBeUndefined();
    const c = await ctl(home, ['connect', 'cursor', '--config', store]);
    expect(c.code).toBe(0);
    expect(c.stdout).not.toContain('reserve');
  });
});

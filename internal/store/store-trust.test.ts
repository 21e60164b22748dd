import { chmod, chown } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { loadStore, validateStoreDir } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const isRoot = userInfo().uid === 0;
/** uid of "nobody": another local user. */
const OTHER_UID = 65534;

/** A command input that leaves a marker file behind when it runs. */
function markerProfile(marker: string, disabled = false): string[] {
  return [
    'inputs:',
    '  - id: tok',
    '    type: command',
    `    command: sh -c 'touch ${marker} && echo value'`,
    'servers:',
    '  - name: a',
    '    cmd: [node, a.js]',
    '    env: { TOK: "${input:tok}" }',
    ...(disabled ? ['    disabled: true'] : []),
  ];
}

const issuesOf = async (dir: string, env: NodeJS.ProcessEnv = {}) => {
  const r = await loadStore(dir, { env });
  return r.ok ? [] : r.issues.map(formatIssue);
};

describe('store files the core trusts', () => {
  it.skipIf(!isRoot)("refuses a profiles directory writable by a group other than the user's own", async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers: []'] });
    await chown(join(dir, 'profiles'), 0, OTHER_UID);
    await chmod(join(dir, 'profiles'), 0o775);
    expect((await issuesOf(dir)).join('\n')).toMatch(/writable by its group \(gid 65534, mode 0775\)/);
  });

  it.skipIf(!isRoot)('refuses a profile file another user owns, naming the file and the fix', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers: []'] });
    const file = join(dir, 'profiles/default.yaml');
    await chown(file, OTHER_UID, OTHER_UID);
    const issues = await issuesOf(dir);
    expect(issues.join('\n')).toContain(file);
    expect(issues.join('\n')).toMatch(/owned by uid 65534.*chown \$\(id -u\)/s);
  });

  it('refuses a profiles directory others can write', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers: []'] });
    await chmod(join(dir, 'profiles'), 0o777);
    expect((await issuesOf(dir)).join('\n')).toMatch(/profiles.*writable by every user \(mode 0777\).*chmod go-w/s);
    // Group-writable is fine for the user's own primary group (umask 002), not for another group.
    await chmod(join(dir, 'profiles'), 0o775);
    expect(await issuesOf(dir)).toEqual([]);
  });

  it('refuses a store file over the size cap with a clear error, and loads it under a larger cap', async () => {
    const big = ['servers: []', `# ${'x'.repeat(4096)}`];
    const dir = await store({ 'profiles/default.yaml': big });
    expect((await issuesOf(dir, { MCPD_STORE_MAX_FILE_BYTES: '1024' })).join('\n')).toMatch(
      /default\.yaml.*over the 1024-byte limit for a store file.*MCPD_STORE_MAX_FILE_BYTES/s,
    );
    expect(await issuesOf(dir, { MCPD_STORE_MAX_FILE_BYTES: '100000' })).toEqual([]);
  });
});

describe('command inputs run only where they are needed', () => {
  it('validate does not run them unless asked', async () => {
    const dir = await store({ 'profiles/default.yaml': markerProfile('MARK') });
    expect(await validateStoreDir(dir, {})).toEqual([]);
    expect(existsSync(join(dir, 'MARK'))).toBe(false);
    expect(await validateStoreDir(dir, {}, true)).toEqual([]);
    expect(existsSync(join(dir, 'MARK'))).toBe(true);
  });

  it("does not run those of disabled servers or of profiles no caller uses; runs a used profile's", async () => {
    const dir = await store({
      'profiles/default.yaml': markerProfile('DISABLED', true),
      'profiles/unused.yaml': markerProfile('UNUSED'),
      'profiles/used.yaml': markerProfile('USED'),
      'callers.yaml': ['callers:', '  vscode: used'],
    });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(true);
    expect(['DISABLED', 'UNUSED', 'USED'].filter((m) => existsSync(join(dir, m)))).toEqual(['USED']);
    if (!r.ok) return;
    // The unused profile's server is loaded but cannot start without its input.
    expect(r.store.profiles.get('unused')?.servers[0]?.disabled).toBe(true);
    expect(r.store.profiles.get('used')?.servers[0]).toMatchObject({ disabled: false, env: { TOK: 'value' } });
  });
});

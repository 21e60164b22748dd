import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { ctl, removeHomes, tempHome } from '../support/client-home.js';

afterEach(removeHomes);

const VSCODE_JSONC = `{
    // my servers, hand-written
    "servers": {
        "other": { "command": "other-server" }, /* keep me */
    },
    "inputs": []
}
`;

describe('mcpdctl connect edits a client config as a person would', () => {
  it('keeps comments, layout, the mode and a symbolic link; one backup however often it runs', async () => {
    const { home, store } = tempHome();
    const real = join(home, 'dotfiles', 'vscode-mcp.json');
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, VSCODE_JSONC, { mode: 0o644 });
    const link = join(home, '.config', 'Code', 'User', 'mcp.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);

    expect((await ctl(home, ['connect', 'vscode', '--config', store])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const text = readFileSync(real, 'utf8');
    expect(text).toContain('// my servers, hand-written');
    expect(text).toContain('/* keep me */');
    expect(text.startsWith('{\n    // my servers')).toBe(true);
    expect(statSync(real).mode & 0o777).toBe(0o644);
    const doc = parse(text) as { servers: Record<string, { args?: string[] }> };
    expect(doc.servers.other).toEqual({ command: 'other-server' });
    expect(doc.servers.mcpd?.args?.[1]).toBe('vscode');

    expect((await ctl(home, ['connect', 'vscode', '--caller', 'work', '--config', store])).code).toBe(0);
    expect((await ctl(home, ['disconnect', 'vscode'])).code).toBe(0);
    expect(readdirSync(dirname(real)).sort()).toEqual(['vscode-mcp.json', 'vscode-mcp.json.mcpd-backup']);
    // Disconnect leaves the hand-written file as it was, comments included.
    expect(readFileSync(real, 'utf8').replace(/\s+/g, '')).toBe(VSCODE_JSONC.replace(/\s+/g, ''));
  });

  it('refuses a caller name that would be read as a flag, and changes nothing', async () => {
    const { home, store } = tempHome();
    const r = await ctl(home, ['connect', 'cursor', '--caller=--socket=/tmp/elsewhere.sock', '--config', store]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--caller "--socket=/tmp/elsewhere.sock" is not a valid caller name');
    expect(readdirSync(home)).not.toContain('.cursor');
  });

  it('concurrent connects to one file lose nothing and leave no lock or temp file', async () => {
    const { home, store } = tempHome();
    const file = join(home, '.claude.json');
    const keys = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`setting${i}`, i]));
    writeFileSync(file, JSON.stringify({ ...keys, mcpServers: { other: { command: 'x' } } }, null, 2));
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ctl(home, ['connect', 'claude-code', '--caller', `c${i}`, '--config', store])),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { mcpServers: Record<string, { args: string[] }> };
    for (const [k, v] of Object.entries(keys)) expect(doc[k]).toBe(v);
    expect(doc.mcpServers.other).toEqual({ command: 'x' });
    expect(doc.mcpServers.mcpd?.args[1]).toMatch(/^c[0-5]$/);
    expect(readdirSync(home).filter((n) => n.includes('.mcpd-lock') || n.includes('.mcpd-tmp'))).toEqual([]);
  });

  it('says when imported servers would run twice, and --move takes them out of the client', async () => {
    const { home, store } = tempHome();
    const file = join(home, '.cursor', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { 'my echo': { command: 'echo-server', args: ['x'] }, keep: { command: 'k' } } }, null, 2),
    );
    writeFileSync(join(store, 'callers.yaml'), 'callers:\n  cursor: cursor\n');
    writeFileSync(join(store, 'profiles', 'cursor.yaml'), 'servers:\n  - name: my-echo\n    cmd: [echo-server, x]\n');

    const plain = await ctl(home, ['connect', 'cursor', '--config', store]);
    expect(plain.stdout).toContain("note: my echo is also in mcpd's profile for this caller and stays in cursor's config");
    const moved = await ctl(home, ['connect', 'cursor', '--move', '--config', store]);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/- "my echo": \{/);
    expect(moved.stdout).toContain('moved to mcpd (removed from cursor): my echo');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(doc.mcpServers).sort()).toEqual(['keep', 'mcpd']);
    expect(JSON.parse(readFileSync(`${file}.mcpd-backup`, 'utf8')).mcpServers['my echo']).toEqual({ command: 'echo-server', args: ['x'] });
  });

  it('--move leaves in the client a server mcpd cannot run yet (an unset variable, an input without a value, disabled)', async () => {
    const { home, store } = tempHome();
    const file = join(home, '.cursor', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    const entries = { gh: { command: 'gh-mcp' }, form: { command: 'form-mcp' }, off: { command: 'off-mcp' }, ok: { command: 'ok-mcp' } };
    writeFileSync(file, JSON.stringify({ mcpServers: entries }, null, 2));
    writeFileSync(join(store, 'callers.yaml'), 'callers:\n  cursor: cursor\n');
    writeFileSync(
      join(store, 'profiles', 'cursor.yaml'),
      [
        'inputs:',
        '  - { id: pass, type: promptString, description: A password, password: true }',
        'servers:',
        '  - name: gh',
        '    cmd: [gh-mcp]',
        '    env: { GITHUB_TOKEN: "${MCPD_TEST_UNSET_TOKEN}" }',
        '  - name: form',
        '    cmd: [form-mcp, "${input:pass}"]',
        '  - name: off',
        '    cmd: [off-mcp]',
        '    disabled: true',
        '  - name: ok',
        '    cmd: [ok-mcp, "${MCPD_TEST_OPTIONAL:-}"]',
        '',
      ].join('\n'),
    );
    const moved = await ctl(home, ['connect', 'cursor', '--move', '--config', store]);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('moved to mcpd (removed from cursor): ok');
    expect(moved.stdout).toContain("note: gh stays in cursor's config: mcpd cannot run it yet (no value for ${MCPD_TEST_UNSET_TOKEN})");
    expect(moved.stdout).toContain("note: form stays in cursor's config: mcpd cannot run it yet (no value for ${input:pass})");
    expect(moved.stdout).toContain("note: off stays in cursor's config: mcpd cannot run it yet (it is disabled in the profile)");
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(doc.mcpServers).sort()).toEqual(['form', 'gh', 'mcpd', 'off']);
  });
});

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadStore } from '../../internal/store/index.js';
import { FIXTURES, MCPDMCP } from '../support/paths.js';
import { ctl, removeHomes, tempHome } from '../support/client-home.js';
import { must } from '../../internal/shared/must.js';

/** The sandbox mcpdctl import proposes (sandbox-proposal.ts): path arguments written, hosts allowed. */
const box = (write: string[] = [], allow: string[] = []) => ({ filesystem: { read: [], write }, network: { allow } });

const SAMPLES = join(FIXTURES, 'client-configs');
afterEach(removeHomes);

function place(home: string, rel: string, sample: string): string {
  const p = join(home, rel);
  mkdirSync(dirname(p), { recursive: true });
  copyFileSync(join(SAMPLES, sample), p);
  return p;
}

type Servers = Record<string, unknown>[];
const profileOf = (store: string, name: string) =>
  parse(readFileSync(join(store, 'profiles', `${name}.yaml`), 'utf8')) as { servers: Servers; inputs?: unknown[] };

describe('mcpdctl import', () => {
  it('a name cut to 64 characters says so, and connect still knows the client entry runs twice', async () => {
    const { home, store } = tempHome();
    const long = `server-${'x'.repeat(70)}`;
    const file = join(home, '.cursor', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ mcpServers: { [long]: { command: 'long-mcp' } } }, null, 2));
    const r = await ctl(home, ['import', 'cursor', '--config', store]);
    expect(r.code).toBe(0);
    const cut = long.slice(0, 64);
    expect(r.stdout).toContain(`server "${long}": renamed to "${cut}" (they are 64 characters at most)`);
    expect(profileOf(store, 'cursor').servers.map((s) => s.name)).toEqual([cut]);
    const c = await ctl(home, ['connect', 'cursor', '--config', store]);
    expect(c.stdout).toContain(`note: ${long} is also in mcpd's profile for this caller`);
  });

  it("runs a project .mcp.json's stdio servers in the project folder, so relative paths keep working, and says so", async () => {
    const { home, store } = tempHome();
    const proj = join(home, 'proj');
    mkdirSync(proj, { recursive: true });
    const file = join(proj, '.mcp.json');
    const servers = {
      local: { command: 'node', args: ['./build/index.js'] },
      pinned: { command: 'node', args: ['x.js'], cwd: '/opt/elsewhere' },
      remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    };
    writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    const r = await ctl(home, ['import', file, '--profile', 'proj', '--config', store]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`server "local": runs in ${proj}, the project folder of .mcp.json, so its relative paths keep working`);
    const p = profileOf(store, 'proj');
    expect(p.servers.map((s) => [s.name, s.cwd])).toEqual([
      ['local', proj],
      ['pinned', '/opt/elsewhere'],
      ['remote', undefined],
    ]);
    const loaded = await loadStore(store, { env: process.env, scaffold: false });
    const local = loaded.ok ? loaded.store.profiles.get('proj')?.servers.find((s) => s.name === 'local') : undefined;
    expect(local?.cwd).toBe(proj);
  });

  it('imports Claude Desktop from its Linux location: args with spaces, env, renamed server, other keys ignored', async () => {
    const { home, store } = tempHome();
    place(home, '.config/Claude/claude_desktop_config.json', 'claude_desktop_config.json');
    const r = await ctl(home, ['import', 'claude-desktop', '--config', store]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/server "brave search": renamed to "brave-search"/);
    expect(r.stdout).toContain('callers.yaml: caller "claude-desktop" now uses profile "claude-desktop"');
    const p = profileOf(store, 'claude-desktop');
    expect(p.servers).toEqual([
      {
        name: 'filesystem',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/jane/My Documents', '/Users/jane/Desktop'],
        sandbox: box(['/Users/jane/My Documents', '/Users/jane/Desktop']),
      },
      {
        name: 'github',
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' },
        sandbox: box([], ['api.github.com']),
      },
      {
        name: 'brave-search',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-brave-search'],
        env: { BRAVE_API_KEY: 'BSA-example-key', DEBUG: '1' },
        sandbox: box([], ['api.search.brave.com']),
      },
    ]);
    // The written profile is a valid one: the store loads with it once the variable is set.
    const loaded = await loadStore(store, { env: { ...process.env, GITHUB_TOKEN: 't' }, scaffold: false });
    expect(loaded.ok ? [...loaded.store.profiles.keys()] : loaded.issues).toContain('claude-desktop');
    if (loaded.ok) {
      const fs = loaded.store.profiles.get('claude-desktop')?.servers.find((s) => s.name === 'filesystem');
      expect(fs?.cmd[3]).toBe('/Users/jane/My Documents');
      expect(loaded.store.callers.get('claude-desktop')).toBe('claude-desktop');
    }
  });

  it('imports a Cursor file: http server with headers, ${env:X} → ${X}, sse, and reports envFile', async () => {
    const { home, store } = tempHome();
    const r = await ctl(home, ['import', join(SAMPLES, 'cursor-mcp.json'), '--profile', 'work', '--config', store]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/server "postgres": "envFile" not imported \(mcpd does not read env files/);
    expect(r.stdout).toMatch(/set SENTRY_TOKEN, PGPASSWORD in mcpd's environment .*until then the core leaves this server out/);
    const p = profileOf(store, 'work');
    expect(p.servers).toEqual([
      {
        name: 'sentry',
        transport: 'streamable_http',
        url: 'https://mcp.sentry.dev/mcp',
        headers: { Authorization: 'Bearer ${SENTRY_TOKEN}' },
      },
      {
        name: 'postgres',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://localhost/my db'],
        env: { PGPASSWORD: '${PGPASSWORD}' },
        sandbox: box(),
      },
      { name: 'legacy-sse', transport: 'sse', url: 'http://127.0.0.1:8808/sse' },
    ]);
  });

  it('imports VS Code mcp.json (JSONC): inputs, ${input:…}, ${userHome}; skips ${workspaceFolder} with the reason', async () => {
    const { home, store } = tempHome();
    place(home, '.config/Code/User/mcp.json', 'vscode-mcp.json');
    // A mapping the user made stays; the comment in callers.yaml too.
    writeFileSync(join(store, 'callers.yaml'), '# mine\ncallers:\n  vscode: default\n');
    const r = await ctl(home, ['import', 'vscode', '--config', store]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('callers.yaml already maps caller "vscode" to profile "default"; left as is');
    expect(readFileSync(join(store, 'callers.yaml'), 'utf8')).toBe('# mine\ncallers:\n  vscode: default\n');
    expect(r.stdout).toMatch(/server "workspace-fs": not imported: it uses \$\{workspaceFolder\}, which only the editor can resolve/);
    const p = profileOf(store, 'vscode');
    expect(p.inputs).toEqual([
      { id: 'github-pat', type: 'promptString', description: 'GitHub Personal Access Token', password: true },
      { id: 'region', type: 'pickString', description: 'Region', options: ['eu-west-1', 'us-east-1'], default: 'eu-west-1' },
    ]);
    expect(p.servers.map((s) => s.name)).toEqual(['github', 'aws-docs']);
    expect(p.servers[0]).toMatchObject({ transport: 'streamable_http', headers: { Authorization: 'Bearer ${input:github-pat}' } });
    expect(p.servers[1]).toMatchObject({
      args: ['awslabs.aws-documentation-mcp-server@latest', '--region', '${input:region}'],
      env: { HOME_DIR: '${HOME}' },
    });
  });

  it('creates the store when there is none yet (right after installing), and the result loads', async () => {
    const { home } = tempHome();
    const store = join(home, '.config', 'mcpd');
    const r = await ctl(home, ['import', join(SAMPLES, 'cursor-mcp.json'), '--profile', 'work']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`created a profile store in ${store}`);
    const loaded = await loadStore(store, { env: { ...process.env, SENTRY_TOKEN: 't', PGPASSWORD: 'p' }, scaffold: false });
    expect(loaded.ok ? [...loaded.store.profiles.keys()].sort() : loaded.issues).toEqual(['default', 'work']);
  });

  it('never overwrites without --force; --dry-run writes nothing; a bad file says what is wrong', async () => {
    const { home, store } = tempHome();
    const claudeCode = place(home, 'cc.json', 'claude-code.json');
    const dry = await ctl(home, ['import', claudeCode, '--config', store, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/dry run: would write .*cc\.yaml \(3 servers\)/);
    expect(dry.stdout).toMatch(/X-Workspace: \$\{NOTION_WORKSPACE:-main\}/);
    expect(existsSync(join(store, 'profiles', 'cc.yaml'))).toBe(false);
    expect((await ctl(home, ['import', claudeCode, '--config', store])).code).toBe(0);
    const again = await ctl(home, ['import', claudeCode, '--config', store]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/cc\.yaml exists; pass --force to overwrite it/);
    expect((await ctl(home, ['import', claudeCode, '--config', store, '--force'])).code).toBe(0);
    writeFileSync(join(home, 'broken.json'), '{ "mcpServers": { "a": ');
    const broken = await ctl(home, ['import', join(home, 'broken.json'), '--config', store]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/broken\.json is not valid JSON/);
  });
});

describe('mcpdctl connect / disconnect', () => {
  const CASES: [client: string, rel: string, key: string][] = [
    ['claude-desktop', '.config/Claude/claude_desktop_config.json', 'mcpServers'],
    ['cursor', '.cursor/mcp.json', 'mcpServers'],
    ['vscode', '.config/Code/User/mcp.json', 'servers'],
    ['claude-code', '.claude.json', 'mcpServers'],
  ];

  it.each(CASES)(
    '%s: writes the entry (idempotent, backed up, diff shown), keeps the rest, and disconnect undoes it',
    async (client, rel, key) => {
      const { home, store } = tempHome();
      const file = join(home, rel);
      mkdirSync(dirname(file), { recursive: true });
      const original = { theme: 'dark', [key]: { other: { command: 'other-server', args: ['x'] } } };
      writeFileSync(file, JSON.stringify(original, null, 2));

      const r = await ctl(home, ['connect', client, '--caller', 'work', '--config', store]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\+ {3}"command": /);
      expect(r.stdout).toMatch(new RegExp(`connected: ${file.replace(/[.]/g, '\\.')}`));
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(doc.theme).toBe('dark');
      expect(doc[key].other).toEqual({ command: 'other-server', args: ['x'] });
      expect(doc[key].mcpd.command).toBe(process.execPath);
      expect(doc[key].mcpd.args).toEqual([MCPDMCP, 'work', '--config', store]);
      if (client === 'vscode') expect(doc[key].mcpd.type).toBe('stdio');
      const backups = readdirSync(dirname(file)).filter((n) => n.endsWith('.mcpd-backup'));
      expect(backups).toHaveLength(1);
      expect(JSON.parse(readFileSync(join(dirname(file), must(backups[0], 'the backup')), 'utf8'))).toEqual(original);

      const again = await ctl(home, ['connect', client, '--caller', 'work', '--config', store]);
      expect(again.stdout).toMatch(/already connected/);
      expect(readdirSync(dirname(file)).filter((n) => n.endsWith('.mcpd-backup'))).toHaveLength(1);

      const off = await ctl(home, ['disconnect', client]);
      expect(off.code).toBe(0);
      expect(off.stdout).toMatch(/- {3}"command": /);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(original);
      expect((await ctl(home, ['disconnect', client])).stdout).toMatch(/not connected/);
    },
  );

  it('creates a missing config file; --dry-run changes nothing; an unknown client is named', async () => {
    const { home, store } = tempHome();
    const dry = await ctl(home, ['connect', 'cursor', '--config', store, '--dry-run']);
    expect(dry.stdout).toMatch(/dry run, not written/);
    expect(existsSync(join(home, '.cursor', 'mcp.json'))).toBe(false);
    expect((await ctl(home, ['connect', 'cursor', '--config', store])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers.mcpd.args[1]).toBe('cursor');
    const bad = await ctl(home, ['connect', 'zed']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'unknown client "zed"; the known clients are claude-desktop, cursor, vscode, claude-code, gemini-cli, codex',
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPD, MCPDCTL } from '../support/paths.js';
import { server } from '../support/profiles.js';
import { loadStore } from '../../internal/store/index.js';
import { formatIssue } from '../../internal/shared/errors.js';

const PROBE = join(FIXTURES, 'servers/sandbox-probe.mjs');
const run = (program: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [program, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('sandboxed by default: what mcpd init and mcpdctl import write', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpd-sandbox-defaults-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('mcpd init turns sandboxing on where bubblewrap is installed, and says why not where it is missing', async () => {
    const on = await run(MCPD, ['init', '--config', join(dir, 'on')], { ...process.env, PATH: '/usr/bin:/bin' });
    expect(on.code).toBe(0);
    expect(on.stdout).toContain('servers you add to profiles/default.yaml run sandboxed');
    expect(readFileSync(join(dir, 'on/profiles/default.yaml'), 'utf8')).toMatch(/^sandbox: true$/m);

    const bare = join(dir, 'bin'); // a PATH without bwrap (node runs mcpd by its own path)
    mkdirSync(bare);
    const off = await run(MCPD, ['init', '--config', join(dir, 'off')], { ...process.env, PATH: bare });
    expect(off.stdout).toContain('servers run unsandboxed');
    const text = readFileSync(join(dir, 'off/profiles/default.yaml'), 'utf8');
    expect(text).not.toMatch(/^sandbox: true$/m);
    expect(text).toContain('# sandbox: true  # needs bubblewrap ("bwrap" on PATH), not found');
  });

  it('mcpdctl import proposes each server a sandbox from its entry, shows it before writing, and the profile loads with it', async () => {
    const client = join(dir, 'client.json');
    const projects = join(dir, 'projects');
    writeFileSync(
      client,
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', projects, '/opt/srv/server.js'] },
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } },
          couch: { command: 'node', args: ['couch.js'], env: { COUCH_URL: 'http://127.0.0.1:5984/db' } },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp' },
        },
      }),
    );
    const store = join(dir, 'store');
    const env = { ...process.env, MCPD_SOCKET: join(dir, 'no-core.sock') };
    const r = await run(MCPDCTL, ['import', client, '--config', store, '--profile', 'default', '--force'], env);
    expect(r.code, r.stderr).toBe(0);
    const shown = r.stdout.indexOf(`sandbox: files → read: none; write: ${projects}; network: none`);
    expect(shown).toBeGreaterThanOrEqual(0);
    expect(shown).toBeLessThan(r.stdout.indexOf('wrote '));
    expect(r.stdout).toContain('sandbox: github → read: none; write: none; network: api.github.com');
    expect(r.stdout).toContain('  network.allow api.github.com: env GITHUB_PERSONAL_ACCESS_TOKEN is a credential for it');
    expect(r.stdout).toContain('sandbox: couch → read: none; write: none; network: 127.0.0.1:5984');
    expect(r.stdout).not.toContain('sandbox: remote');

    const loaded = await loadStore(store, { env: { HOME: dir }, scaffold: false });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const specs = new Map(loaded.store.profiles.get('default')?.servers.map((s) => [s.name, s]));
    expect(specs.get('files')?.sandbox).toEqual({ read: [], write: [projects], allow: [] });
    expect(specs.get('github')?.sandbox).toEqual({ read: [], write: [], allow: ['api.github.com'] });
    expect(specs.get('remote')?.sandbox).toBeUndefined();
  });
});

describe('a profile with sandbox: true (bubblewrap)', () => {
  let world: TestWorld;
  let one: Client;
  beforeAll(async () => {
    world = new TestWorld({});
    const home = join(world.dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh/id_rsa'), 'SECRET KEY');
    const probe = (name: string, extra: Record<string, string> = {}) => server(name, [process.execPath, PROBE], extra);
    world.write('profiles/default.yaml', `sandbox: true\nservers:\n${probe('plain')}${probe('optout', { sandbox: 'false' })}`);
    await world.startCore({ HOME: home });
    one = await world.gateway('one');
  });
  afterAll(async () => {
    await world.cleanup();
  });

  const read = async (tool: string, path: string) => {
    const r = (await one.callTool({ name: tool, arguments: { path } })) as { content: { text: string }[] };
    return JSON.parse(r.content.map((c) => c.text).join('')) as { ok: boolean; detail: unknown };
  };

  it('sandboxes a server without a sandbox key of its own; sandbox: false opts one out, and status shows which', async () => {
    const secret = join(world.dir, 'home/.ssh/id_rsa');
    expect(await read('plain__read', secret)).toEqual({ ok: false, detail: 'ENOENT' });
    expect((await read('optout__read', secret)).ok).toBe(true);
    const pools = (await world.calls().status()).pools;
    const target = (name: string) => pools.find((p) => p.references.some((r) => r.endsWith(`/${name}`)))?.target ?? '';
    expect(target('plain')).toContain('[sandbox read: none; write: none; network: none]');
    expect(target('optout')).toContain('[unsandboxed: sandbox: false]');
  });
});

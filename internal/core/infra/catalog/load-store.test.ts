import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../../shared/errors.js';
import { specFingerprint } from '../../../contract/model/fingerprint.js';
import { DEFAULT_NAMESPACE, DEFAULT_RUNTIME, profileFor } from '../../../contract/model/profile.js';
import { SPEC_DEFAULTS } from '../../../contract/model/spec.js';
import { loadStore, validateStoreDir } from '../../../store/index.js';
import { specsByFingerprint } from './diff-stores.js';
import { must } from '../../../shared/must.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const dirs: string[] = [];

async function store(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpd-store-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('loadStore', () => {
  it('loads a valid store with defaults applied', async () => {
    const dir = await store({
      'callers.yaml': 'callers:\n  vscode: dev\n',
      'profiles/default.yaml': 'servers:\n  - name: a\n    cmd: node a.js --x\n',
      'profiles/dev.yaml': [
        'namespace: { separator: ".", maxLength: 40 }',
        'servers:',
        '  - name: web',
        '    url: https://example.com/mcp',
        '    headers: { X-Port: 8080 }',
        '  - name: b',
        '    command: python',
        '    args: [-m, srv]',
        '    cwd: sub',
        '    strategy: singleton',
        '',
      ].join('\n'),
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings).toEqual([]);
    const def = r.store.profiles.get('default');
    expect(def?.file).toBe(join(dir, 'profiles', 'default.yaml'));
    expect(def?.namespace).toEqual(DEFAULT_NAMESPACE);
    expect(def?.servers[0]).toEqual({
      name: 'a',
      transport: 'stdio',
      cmd: ['node', 'a.js', '--x'],
      env: {},
      headers: {},
      cwd: dir,
      disabled: false,
      forbiddenTools: [],
      toolMeta: {},
      ...SPEC_DEFAULTS,
    });
    const dev = r.store.profiles.get('dev');
    expect(dev?.namespace).toEqual({ mode: 'prefix', separator: '.', maxLength: 40 });
    const [web, b] = dev?.servers ?? [];
    expect(web).toMatchObject({ transport: 'streamable_http', url: 'https://example.com/mcp', headers: { 'X-Port': '8080' }, cmd: [] });
    expect(web?.cwd).toBeUndefined();
    expect(b).toMatchObject({ cmd: ['python', '-m', 'srv'], cwd: join(dir, 'sub'), strategy: 'singleton', maxInstances: 1 });
    expect(r.store.runtime).toEqual(DEFAULT_RUNTIME);
  });

  it('maps known callers and sends unknown callers to default', async () => {
    const dir = await store({
      'callers.yaml': 'callers:\n  vscode: dev\n',
      'profiles/default.yaml': 'servers: []\n',
      'profiles/dev.yaml': 'servers: []\n',
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error('store should load');
    expect(profileFor(r.store, 'vscode').name).toBe('dev');
    expect(profileFor(r.store, 'never-heard-of-it').name).toBe('default');
  });

  it('reads runtime.yaml and resolves a relative socket against the store', async () => {
    const dir = await store({
      'profiles/default.yaml': '',
      'runtime.yaml': 'socket: run/mcpd.sock\nlogLevel: debug\npageSize: 20\nmetricsAddress: ""\n',
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.store.runtime).toEqual({
      ...DEFAULT_RUNTIME,
      socket: join(dir, 'run/mcpd.sock'),
      logLevel: 'debug',
      pageSize: 20,
      metricsAddress: '',
    });
    expect(r.store.callers.size).toBe(0);
  });

  it('warns about fields the transport ignores, and about singleton overriding maxInstances', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: a',
        '    transport: stdio',
        '    url: http://h/',
        '    cmd: [x]',
        '    strategy: singleton',
        '    maxInstances: 3',
        '',
      ].join('\n'),
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings.map((w) => [w.line, w.field])).toEqual([
      [4, 'servers[0].url'],
      [7, 'servers[0].maxInstances'],
    ]);
    const spec = r.store.profiles.get('default')?.servers[0];
    expect(spec?.maxInstances).toBe(1);
    expect(spec && 'url' in spec).toBe(false);
  });

  it('reports a directory without a store unless asked to scaffold', async () => {
    const dir = await store({});
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/no profile store/);
  });

  it('scaffolds a missing store and loads it', async () => {
    const dir = join(await store({}), 'fresh');
    const r = await loadStore(dir, { env: {}, scaffold: true });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.store.profiles.get('default')?.servers).toEqual([]);
    expect(await readFile(join(dir, 'profiles/default.yaml'), 'utf8')).toMatch(/^# /);
    expect(await readFile(join(dir, 'callers.yaml'), 'utf8')).toMatch(/callers: \{\}/);
  });

  it('never overwrites existing files when scaffolding', async () => {
    const dir = await store({ 'profiles/dev.yaml': 'servers: []\n' });
    const r = await loadStore(dir, { env: {}, scaffold: true });
    // profiles/ exists, so this is a store (without default), not an empty directory.
    expect(r.ok).toBe(false);
    await expect(stat(join(dir, 'callers.yaml'))).rejects.toThrow();
    expect(await readFile(join(dir, 'profiles/dev.yaml'), 'utf8')).toBe('servers: []\n');
  });
});

describe('the repository default store', () => {
  it('loads without issues or warnings', async () => {
    const r = await loadStore(REPO, { env: { PATH: process.env.PATH } });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings).toEqual([]);
    expect(await validateStoreDir(REPO, {})).toEqual([]);
    expect([...r.store.profiles.keys()].sort()).toEqual(['default', 'dev']);
    expect(Object.fromEntries(r.store.callers)).toEqual({ 'claude-desktop': 'default', vscode: 'dev', cursor: 'dev' });
  });

  it('points every stdio server at an existing entry file', async () => {
    const r = await loadStore(REPO, { env: {} });
    if (!r.ok) throw new Error('repo store should load');
    for (const p of r.store.profiles.values()) {
      for (const s of p.servers) {
        expect(s.cmd[0]).toBe('node');
        await expect(stat(resolve(s.cwd ?? REPO, must(s.cmd[1], 'script path')))).resolves.toBeTruthy();
      }
    }
  });

  it('shares one pool between default/everything and dev/demo', async () => {
    const r = await loadStore(REPO, { env: {} });
    if (!r.ok) throw new Error('repo store should load');
    const everything = r.store.profiles.get('default')?.servers.find((s) => s.name === 'everything');
    const demo = r.store.profiles.get('dev')?.servers.find((s) => s.name === 'demo');
    expect(everything && demo).toBeTruthy();
    expect(specFingerprint(demo!)).toBe(specFingerprint(everything!));
    const shared = specsByFingerprint(r.store).get(specFingerprint(everything!));
    expect(shared?.references).toEqual(['default/everything', 'dev/demo']);
  });

  it('expands the memory file path to an absolute path in the state dir', async () => {
    const withDefault = await loadStore(REPO, { env: {} });
    const withState = await loadStore(REPO, { env: { MCPD_STATE_DIR: '/var/lib/mcpd' } });
    if (!withDefault.ok || !withState.ok) throw new Error('repo store should load');
    const mem = (s: typeof withDefault.store) => s.profiles.get('default')?.servers.find((x) => x.name === 'memory')?.env.MEMORY_FILE_PATH;
    expect(mem(withDefault.store)).toBe(join(REPO, '.mcpd-state', 'memory.jsonl'));
    expect(mem(withState.store)).toBe('/var/lib/mcpd/memory.jsonl');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { loadStore } from '../../internal/store/index.js';
import { formatIssue } from '../../internal/shared/errors.js';

interface Registry {
  url: string;
  close(): Promise<void>;
}

describe('mcpdctl search and add against an MCP Registry (v0.1 API on loopback)', () => {
  let registry: Registry;
  let dir: string;
  const ctl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      // No core runs: the commands use --config's store.
      const env = { ...process.env, MCPD_SOCKET: join(dir, 'no-core.sock') };
      execFile(process.execPath, [MCPDCTL, '--config', dir, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    const { startMcpRegistry } = (await import(join(FIXTURES, 'registries/mcp-registry.mjs'))) as {
      startMcpRegistry: () => Promise<Registry>;
    };
    registry = await startMcpRegistry();
    dir = mkdtempSync(join(tmpdir(), 'mcpd-registry-'));
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'runtime.yaml'), `metricsAddress: ""\nregistry:\n  url: ${registry.url}\n`);
    writeFileSync(join(dir, 'profiles/default.yaml'), '# my servers\nservers: []\n');
  });
  afterAll(async () => {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('search lists the matching entries with their packages', async () => {
    const r = await ctl('search', 'filesystem');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('io.github.modelcontextprotocol/server-filesystem 2026.8.31  npm:@modelcontextprotocol/server-filesystem');
    expect(r.stdout).not.toContain('server-everything');
  });

  it('add writes a pinned, sandboxed entry asking for required values as inputs, after showing the diff', async () => {
    const dry = await ctl('add', 'io.github.modelcontextprotocol/server-filesystem', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+      - "@modelcontextprotocol/server-filesystem@2026.8.31"');
    expect(dry.stdout).toContain('${input:server-filesystem-allowed-directory}');
    // The directory the user will give is the path the proposed sandbox grants, shown with why.
    expect(dry.stdout).toMatch(/\+ {8}write:\n\+ {10}- \$\{input:server-filesystem-allowed-directory\}/);
    expect(dry.stdout).toContain(
      'note: sandbox: filesystem.write ${input:server-filesystem-allowed-directory}: the path the server is given there',
    );
    expect(readFileSync(join(dir, 'profiles/default.yaml'), 'utf8')).toBe('# my servers\nservers: []\n');

    const r = await ctl('add', 'io.github.modelcontextprotocol/server-filesystem');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('added server-filesystem (@modelcontextprotocol/server-filesystem@2026.8.31)');
    expect(readFileSync(join(dir, 'profiles/default.yaml'), 'utf8')).toMatch(/^# my servers/);
    const loaded = await loadStore(dir, {
      env: {
        HOME: dir,
        MCPD_INPUT_SERVER_FILESYSTEM_ALLOWED_DIRECTORY: '/srv/docs',
        MCPD_INPUT_SERVER_FILESYSTEM_FS_AUDIT_TOKEN: 's3cret',
      },
    });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const spec = loaded.store.profiles.get('default')?.servers.find((s) => s.name === 'server-filesystem');
    expect(spec?.cmd).toEqual(['npx', '-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/srv/docs']);
    expect(spec?.env).toEqual({ FS_AUDIT_TOKEN: 's3cret' });
    expect(spec?.sandbox).toEqual({ read: [], write: ['/srv/docs'], allow: [] });

    const again = await ctl('add', 'io.github.modelcontextprotocol/server-filesystem');
    expect(again.stderr).toContain('already has a server named server-filesystem');
    expect((await ctl('add', 'io.github.example/nothing')).stderr).toMatch(/no such entry/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

afterEach(removeHomes);

const KNOWN = 'claude-desktop, cursor, vscode, claude-code, gemini-cli, codex';

describe('mcpdctl import / connect know their clients', () => {
  it('lists every known client in --help, claude-code included', async () => {
    const { home } = tempHome();
    for (const cmd of ['import', 'connect', 'disconnect']) {
      const r = await ctl(home, [cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`clients: ${KNOWN}`);
    }
  });

  it('rejects an unknown name that is no file, with the list and the nearest client; an existing file of that name is read', async () => {
    const { home, store } = tempHome();
    const r = await ctl(home, ['import', 'gemini', '--config', store]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`unknown client "gemini" (did you mean gemini-cli?); the known clients are ${KNOWN}`);
    expect(r.stderr).toContain(`there is no file ${join(home, 'gemini')}`);
    const c = await ctl(home, ['connect', 'zed', '--config', store]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(`unknown client "zed"; the known clients are ${KNOWN}`);
    // A file that happens to have such a name is still a file.
    writeAt(home, 'gemini', JSON.stringify({ mcpServers: { t: { command: 'node', args: ['t.js'] } } }));
    const f = await ctl(home, ['import', 'gemini', '--config', store]);
    expect(f.code).toBe(0);
    expect(f.stdout).toContain(`wrote ${join(store, 'profiles', 'gemini.yaml')}: 1 servers (t)`);
  });

  it('imports Claude Code project servers, named with the project and run in it, and says which it skips', async () => {
    const { home, store } = tempHome();
    writeAt(
      home,
      '.claude.json',
      JSON.stringify({
        mcpServers: { memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
        projects: {
          '/home/jane/api server': {
            mcpServers: {
              db: { command: 'uvx', args: ['mcp-server-sqlite', '--db-path', 'data/app.db'] },
              memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
              docs: { type: 'http', url: 'https://docs.example.com/mcp' },
            },
          },
          '/home/jane/empty': { mcpServers: {} },
        },
      }),
    );
    const r = await ctl(home, ['import', 'claude-code', '--config', store]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('server "db" of project /home/jane/api server: imported as "api-server-db", run in /home/jane/api server');
    expect(r.stdout).toContain(
      'server "memory" of project /home/jane/api server: the same as the user-level server "memory"; imported once',
    );
    expect(r.stdout).toContain('server "docs" of project /home/jane/api server: imported as "api-server-docs"');
    const p = parse(readFileSync(join(store, 'profiles', 'claude-code.yaml'), 'utf8')) as { servers: Record<string, unknown>[] };
    expect(p.servers.map((s) => s.name)).toEqual(['memory', 'api-server-db', 'api-server-docs']);
    expect(p.servers[1]).toMatchObject({
      command: 'uvx',
      args: ['mcp-server-sqlite', '--db-path', 'data/app.db'],
      cwd: '/home/jane/api server',
    });
    expect(p.servers[2]).toMatchObject({ transport: 'streamable_http', url: 'https://docs.example.com/mcp' });
    expect(p.servers[2]?.cwd).toBeUndefined();
  });
});

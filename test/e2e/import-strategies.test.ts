import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadStore } from '../../internal/store/index.js';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

afterEach(removeHomes);

const CLAUDE_DESKTOP = JSON.stringify({
  mcpServers: {
    memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/jane/memory.jsonl' } },
    sqlite: { command: 'uvx', args: ['mcp-server-sqlite', '--db-path', '/home/jane/test.db'] },
    git: { command: 'uvx', args: ['mcp-server-git', '--repository', '/home/jane/repo'] },
    browser: { command: 'npx', args: ['@playwright/mcp@latest'] },
    files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/jane/Documents'] },
    notes: { command: 'notes-mcp', args: ['--data-dir', './notes'] },
    ledger: { command: 'ledger-mcp', env: { LEDGER_DATABASE: '/var/lib/ledger/books.sqlite' } },
    weather: { command: 'weather-mcp', args: ['--units', 'metric'], env: { API_BASE: 'https://api.example.com' } },
    remote: { url: 'https://mcp.example.com/mcp' },
  },
});

describe('import gives each server a safe strategy and says which rule chose it', () => {
  it('known servers by table, stateful-looking unknown ones singleton, the rest the default', async () => {
    const { home, store } = tempHome();
    writeAt(home, '.config/Claude/claude_desktop_config.json', CLAUDE_DESKTOP);
    const r = await ctl(home, ['import', 'claude-desktop', '--config', store]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('strategy: '));
    expect(lines).toEqual([
      'strategy: memory → singleton (known server @modelcontextprotocol/server-memory: one process owns its knowledge-graph file (profiles/default.yaml runs it so))',
      'strategy: sqlite → singleton (known server mcp-server-sqlite: one process writes its SQLite database)',
      'strategy: git → singleton (known server mcp-server-git: git locks the repository (.git/index.lock): a second process writing it fails)',
      "strategy: browser → stateful (known server @playwright/mcp: a caller's browser session lives in one process)",
      'strategy: files → stateless (known server @modelcontextprotocol/server-filesystem: every call reads or writes the files afresh (profiles/default.yaml runs it so))',
      'strategy: notes → singleton (looks stateful (--data-dir ./notes): one process, so no two write the same data)',
      'strategy: ledger → singleton (looks stateful (LEDGER_DATABASE=/var/lib/ledger/books.sqlite): one process, so no two write the same data)',
      "strategy: weather → stateless (mcpd's default: no file or database path in its args or env)",
      "strategy: remote → stateless (mcpd's default: a remote server; each call is a request to it)",
    ]);
    const p = parse(readFileSync(join(store, 'profiles', 'claude-desktop.yaml'), 'utf8')) as {
      servers: { name: string; strategy?: string }[];
    };
    expect(Object.fromEntries(p.servers.map((s) => [s.name, s.strategy ?? '(default)']))).toEqual({
      memory: 'singleton',
      sqlite: 'singleton',
      git: 'singleton',
      browser: 'stateful',
      files: '(default)',
      notes: 'singleton',
      ledger: 'singleton',
      weather: '(default)',
      remote: '(default)',
    });
    // What the core will run: one memory process, not the default four.
    const loaded = await loadStore(store, { env: process.env, scaffold: false });
    const memory = loaded.ok ? loaded.store.profiles.get('claude-desktop')?.servers.find((s) => s.name === 'memory') : undefined;
    expect(memory).toMatchObject({ strategy: 'singleton', maxInstances: 1 });
  });

  it('a dry run says the same, and --json gives each rule', async () => {
    const { home, store } = tempHome();
    writeAt(home, '.config/Claude/claude_desktop_config.json', CLAUDE_DESKTOP);
    const dry = await ctl(home, ['import', 'claude-desktop', '--dry-run', '--config', store]);
    expect(dry.stdout).toContain('strategy: memory → singleton (known server @modelcontextprotocol/server-memory');
    expect(dry.stdout).toMatch(/- name: memory\n(.*\n)*? {4}strategy: singleton/);
    const json = JSON.parse((await ctl(home, ['--json', 'import', 'claude-desktop', '--dry-run', '--config', store])).stdout);
    expect(json.strategies.notes).toEqual({
      strategy: 'singleton',
      rule: 'looks stateful (--data-dir ./notes): one process, so no two write the same data',
    });
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse } from 'yaml';
import { MCPDMCP } from '../support/paths.js';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

/** The sandbox mcpdctl import proposes (sandbox-proposal.ts): path arguments written, hosts allowed. */
const box = (write: string[] = [], allow: string[] = []) => ({ filesystem: { read: [], write }, network: { allow } });

afterEach(removeHomes);

const profileOf = (store: string, name: string) =>
  parse(readFileSync(join(store, 'profiles', `${name}.yaml`), 'utf8')) as { servers: Record<string, unknown>[] };

const GEMINI_SETTINGS = `{
  // Gemini CLI allows comments here
  "theme": "GitHub",
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server"],
      "env": { "DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "\${EXTERNAL_API_KEY}" },
      "timeout": 15000,
      "trust": true
    },
    "remote": { "httpUrl": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${TOKEN}" }, "includeTools": ["search"] },
    "legacy": { "url": "http://127.0.0.1:8808/sse", "excludeTools": ["delete_all"] }
  }
}
`;

const CODEX_CONFIG = `# Codex settings, hand-written
model = "gpt-5-codex"   # the model I use

[mcp_servers.docs]
# the documentation server
command = "npx"
args = ["-y", "mcp-docs", "--root", "/srv/docs"]
env_vars = ["DOCS_TOKEN"]

[mcp_servers.docs.env]
LOG_LEVEL = "warn"

# remote, signed in by a token from the environment
[mcp_servers.tracker]
url = "https://tracker.example.com/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
http_headers = { "X-Team" = "core" }
enabled_tools = ["list_issues"]

[mcp_servers.old]
command = "old-server"
enabled = false
startup_timeout_sec = 20

[profiles.fast]
model = "gpt-5-mini"
`;

describe('Gemini CLI as an import / connect target', () => {
  it('imports ~/.gemini/settings.json: httpUrl → streamable HTTP, url → SSE, $VAR → ${VAR}, tool filters kept', async () => {
    const { home, store } = tempHome();
    writeAt(home, '.gemini/settings.json', GEMINI_SETTINGS);
    const r = await ctl(home, ['import', 'gemini-cli', '--config', store], ['DB_CONNECTION_STRING', 'EXTERNAL_API_KEY', 'TOKEN']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('server "pythonTools": "timeout" not imported');
    expect(r.stdout).toContain('server "pythonTools": "trust" not imported');
    expect(r.stdout).toContain('callers.yaml: caller "gemini-cli" now uses profile "gemini-cli"');
    expect(profileOf(store, 'gemini-cli').servers).toEqual([
      {
        name: 'pythonTools',
        command: 'python',
        args: ['-m', 'my_mcp_server'],
        env: { DATABASE_URL: '${DB_CONNECTION_STRING}', API_KEY: '${EXTERNAL_API_KEY}' },
        sandbox: box(),
      },
      {
        name: 'remote',
        transport: 'streamable_http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${TOKEN}' },
        exposeTools: ['search'],
      },
      { name: 'legacy', transport: 'sse', url: 'http://127.0.0.1:8808/sse', forbiddenTools: ['delete_all'] },
    ]);
  });

  it('connect gemini-cli writes the mcpd entry and keeps the comment and the rest; disconnect restores the file', async () => {
    const { home, store } = tempHome();
    const file = writeAt(home, '.gemini/settings.json', GEMINI_SETTINGS);
    const r = await ctl(home, ['connect', 'gemini-cli', '--config', store]);
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('// Gemini CLI allows comments here');
    expect(text).toContain('"theme": "GitHub"');
    const { parse: parseJsonc } = await import('jsonc-parser');
    const doc = parseJsonc(text) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(doc.mcpServers.mcpd).toEqual({ command: process.execPath, args: [MCPDMCP, 'gemini-cli', '--config', store] });
    expect(Object.keys(doc.mcpServers)).toEqual(['pythonTools', 'remote', 'legacy', 'mcpd']);
    expect((await ctl(home, ['disconnect', 'gemini-cli'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(GEMINI_SETTINGS);
  });
});

describe('Codex as an import / connect target', () => {
  it('imports [mcp_servers.*] from $CODEX_HOME/config.toml: env tables, env_vars, bearer token variable, disabled, tool filters', async () => {
    const { home, store } = tempHome();
    writeAt(home, 'codex-home/config.toml', CODEX_CONFIG);
    const env = { CODEX_HOME: join(home, 'codex-home') };
    const r = await ctl(home, ['import', 'codex', '--config', store], ['DOCS_TOKEN', 'TRACKER_TOKEN'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('server "old": "startup_timeout_sec" not imported');
    expect(profileOf(store, 'codex').servers).toEqual([
      {
        name: 'docs',
        command: 'npx',
        args: ['-y', 'mcp-docs', '--root', '/srv/docs'],
        // env_vars: passed when set, as Codex does — optional, not a required ${DOCS_TOKEN}.
        env: { LOG_LEVEL: 'warn', DOCS_TOKEN: '${DOCS_TOKEN:-}' },
        sandbox: box(['/srv/docs']),
      },
      {
        name: 'tracker',
        transport: 'streamable_http',
        url: 'https://tracker.example.com/mcp',
        headers: { 'X-Team': 'core', Authorization: 'Bearer ${TRACKER_TOKEN}' },
        exposeTools: ['list_issues'],
      },
      { name: 'old', command: 'old-server', disabled: true, sandbox: box() },
    ]);
  });

  it('connect codex edits only the [mcp_servers.mcpd] table: comments and every other line stay; --move and disconnect too', async () => {
    const { home, store } = tempHome();
    const file = writeAt(home, '.codex/config.toml', CODEX_CONFIG);
    // The caller's profile runs "docs" now: --move takes its tables (and only them) out of config.toml.
    writeAt(store, 'profiles/codex.yaml', 'servers:\n  - name: docs\n    command: npx\n    args: [-y, mcp-docs]\n');
    writeAt(store, 'callers.yaml', 'callers:\n  codex: codex\n');
    const r = await ctl(home, ['connect', 'codex', '--move', '--config', store]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+ [mcp_servers.mcpd]');
    expect(r.stdout).toContain('- [mcp_servers.docs]');
    expect(r.stdout).toContain('moved to mcpd (removed from codex): docs');
    const text = readFileSync(file, 'utf8');
    const doc = parseToml(text) as { mcp_servers: Record<string, unknown>; model: string; profiles: unknown };
    expect(doc.mcp_servers.mcpd).toEqual({ command: process.execPath, args: [MCPDMCP, 'codex', '--config', store] });
    expect(Object.keys(doc.mcp_servers)).toEqual(['tracker', 'old', 'mcpd']);
    // Every line that was not part of the docs tables is still there, in order, comments included.
    const moved = /^(\[mcp_servers\.docs|# the documentation server|command = "npx"|args = \["-y", "mcp-docs"|env_vars|LOG_LEVEL)/;
    const kept = CODEX_CONFIG.split('\n').filter((l) => !moved.test(l));
    expect(kept.length).toBe(CODEX_CONFIG.split('\n').length - 7);
    const lines = text.split('\n');
    let at = 0;
    for (const l of kept) at = lines.indexOf(l, at) + 1 || expect.fail(`line lost: ${l}`);
    expect(readFileSync(`${file}.mcpd-backup`, 'utf8')).toBe(CODEX_CONFIG);
    expect((await ctl(home, ['connect', 'codex', '--config', store])).stdout).toContain('already connected');
    expect((await ctl(home, ['disconnect', 'codex'])).code).toBe(0);
    expect(parseToml(readFileSync(file, 'utf8'))).toEqual({
      ...parseToml(CODEX_CONFIG),
      mcp_servers: { tracker: doc.mcp_servers.tracker, old: doc.mcp_servers.old },
    });
  });

  it('creates config.toml when Codex has none; an entry written with dotted keys is left alone with what to add by hand', async () => {
    const { home, store } = tempHome();
    expect((await ctl(home, ['connect', 'codex', '--config', store])).code).toBe(0);
    const made = parseToml(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')) as { mcp_servers: { mcpd: { args: string[] } } };
    expect(made.mcp_servers.mcpd.args[1]).toBe('codex');
    const dotted = 'mcp_servers.mcpd.command = "old"\n# mine\n';
    const file = writeAt(home, '.codex/config.toml', dotted);
    const r = await ctl(home, ['connect', 'codex', '--config', store]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[mcp_servers.mcpd] is not written as its own table there');
    expect(r.stderr).toContain('add:\n[mcp_servers.mcpd]');
    expect(readFileSync(file, 'utf8')).toBe(dotted);
    expect(existsSync(`${file}.mcpd-backup`)).toBe(false);
    writeAt(home, '.codex/config.toml', 'model = \n');
    const bad = await ctl(home, ['connect', 'codex', '--config', store]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/config\.toml is not valid TOML .*nothing was changed/);
  });
});

import { readFileSync, statSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseJsonc } from 'jsonc-parser';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestWorld } from '../support/core-process.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { echoServer, profile } from '../support/profiles.js';
import { ctl, removeHomes, tempHome } from '../support/client-home.js';

const URL_ = 'http://127.0.0.1:8931/mcp';
const TOKEN = 'not-a-real-token-7f3a9c';
type Doc = Record<string, Record<string, Record<string, unknown>>>;

/** Runs `connect --http` in a fresh HOME (the token set in mcpdctl's own environment) and reads the entry back. */
async function connectHttp(client: string, extra: string[] = [], url = URL_) {
  const { home, store } = tempHome();
  const r = await ctl(home, ['connect', client, '--http', '--url', url, '--config', store, ...extra], [], { MCPD_HTTP_TOKEN: TOKEN });
  const path = /^connected: (.+)$/m.exec(r.stdout)?.[1] ?? '';
  const text = path ? readFileSync(path, 'utf8') : '';
  const doc = (path.endsWith('.toml') ? parseToml(text) : parseJsonc(text)) as Doc;
  const table = client === 'vscode' ? 'servers' : client === 'codex' ? 'mcp_servers' : 'mcpServers';
  return { r, path, text, entry: doc?.[table]?.mcpd, home, store };
}

describe('mcpdctl connect CLIENT --http writes a streamable HTTP entry each client reads, with no secret in it', () => {
  afterEach(removeHomes);

  it.each([
    ['claude-code', { type: 'http', url: URL_, headers: { Authorization: 'Bearer ${MCPD_HTTP_TOKEN}' } }],
    ['cursor', { url: URL_, headers: { Authorization: 'Bearer ${env:MCPD_HTTP_TOKEN}' } }],
    ['vscode', { type: 'http', url: URL_, headers: { Authorization: 'Bearer ${env:MCPD_HTTP_TOKEN}' } }],
    ['gemini-cli', { httpUrl: URL_, headers: { Authorization: 'Bearer ${MCPD_HTTP_TOKEN}' } }],
    ['codex', { url: URL_, bearer_token_env_var: 'MCPD_HTTP_TOKEN' }],
  ])('%s', async (client, expected) => {
    const { r, path, text, entry, home, store } = await connectHttp(client);
    expect(r.code, r.stderr).toBe(0);
    expect(entry).toEqual(expected);
    // A reference to the variable, never its value; and the new file is the user's alone.
    expect(text).not.toContain(TOKEN);
    expect(statSync(path).mode & 0o077).toBe(0);
    // What to run so there is a gateway to reach: the client only connects.
    expect(r.stdout).toContain(`${client} --config `);
    expect(r.stdout).toContain('--http 127.0.0.1:8931');
    expect(r.stdout).toContain('MCPD_HTTP_TOKEN');
    expect((await ctl(home, ['connect', client, '--http', '--url', URL_, '--config', store])).stdout).toContain('already connected');
  });

  it('another variable with --token-env, referenced the client’s way', async () => {
    const code = await connectHttp('claude-code', ['--token-env', 'WORK_MCPD_TOKEN']);
    expect(code.entry).toEqual({ type: 'http', url: URL_, headers: { Authorization: 'Bearer ${WORK_MCPD_TOKEN}' } });
    expect(code.r.stdout).toContain('MCPD_HTTP_TOKEN="$WORK_MCPD_TOKEN"');
    const codex = await connectHttp('codex', ['--token-env', 'WORK_MCPD_TOKEN']);
    expect(codex.entry).toEqual({ url: URL_, bearer_token_env_var: 'WORK_MCPD_TOKEN' });
  });

  it('refuses what it cannot write, saying why, and changes nothing', async () => {
    const desktop = await connectHttp('claude-desktop');
    expect(desktop.r.code).not.toBe(0);
    expect(desktop.r.stderr).toContain('claude-desktop cannot connect over HTTP: claude_desktop_config.json takes only stdio servers');
    expect(desktop.path).toBe('');
    const bad = await connectHttp('cursor', ['--token-env', 'MY-TOKEN']);
    expect(bad.r.stderr).toContain('--token-env "MY-TOKEN" is not an environment variable name');
    const ftp = await connectHttp('cursor', [], 'ftp://127.0.0.1/mcp');
    expect(ftp.r.stderr).toContain('--url ftp://127.0.0.1/mcp is not an http(s) URL');
    const userinfo = await connectHttp('cursor', [], 'http://me:secret@127.0.0.1:8931/mcp');
    expect(userinfo.r.stderr).toContain('carries a user name or password');
    expect(userinfo.r.stderr).not.toContain('secret');
    const { home, store } = tempHome();
    const noHttp = await ctl(home, ['connect', 'cursor', '--url', URL_, '--config', store]);
    expect(noHttp.stderr).toContain('--url applies only with --http');
  });
});

describe('a client connects over HTTP for real with what connect --http wrote', () => {
  let world: TestWorld;
  let gateway: HttpGatewayProc;
  const clients: Client[] = [];

  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    gateway = await startWorldHttpGateway(world, 'claude-code', [], { MCPD_HTTP_TOKEN: TOKEN });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await stopProc(gateway.proc);
    await world.cleanup();
    removeHomes();
  });

  /** An SDK client sending exactly the headers the entry gives, with `${VAR}` expanded from `env` as the client does. */
  async function clientFrom(url: string, headers: Record<string, string>, env: Record<string, string>): Promise<Client> {
    const expanded = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, n: string) => env[n] ?? '')]),
    );
    const client = new Client({ name: 'connect-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: expanded } }));
    clients.push(client);
    return client;
  }

  it('Claude Code’s entry: url and Authorization header, token from the environment, a tool called', async () => {
    const { r, entry } = await connectHttp('claude-code', [], gateway.url);
    expect(r.code, r.stderr).toBe(0);
    const e = entry as { url: string; headers: Record<string, string> };
    const client = await clientFrom(e.url, e.headers, { MCPD_HTTP_TOKEN: TOKEN });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('fx__echo');
    const res = (await client.callTool({ name: 'fx__echo', arguments: { via: 'http entry' } })) as { content: { text: string }[] };
    expect(JSON.stringify(res.content)).toContain('http entry');
  });

  it('Codex’s entry: bearer_token_env_var names the variable it sends as a bearer token', async () => {
    const { entry } = await connectHttp('codex', [], gateway.url);
    const e = entry as { url: string; bearer_token_env_var: string };
    const client = await clientFrom(e.url, { Authorization: `Bearer \${${e.bearer_token_env_var}}` }, { MCPD_HTTP_TOKEN: TOKEN });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx__echo');
  });

  it('without the variable set the gateway refuses the client: the token is what lets it in', async () => {
    const { entry } = await connectHttp('claude-code', [], gateway.url);
    const e = entry as { url: string; headers: Record<string, string> };
    await expect(clientFrom(e.url, e.headers, {})).rejects.toThrow(/401|nauthori/);
  });
});

import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createControlClient, ControlCalls } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, MCPDCTL } from '../support/paths.js';
import { countProcs, waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: { tools: { name: string }[] } };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

async function toolNames(world: TestWorld, caller: string): Promise<string[]> {
  const client = createControlClient(world.socket);
  try {
    const page = await new ControlCalls(client).listTools({ caller, cursor: '', pageSize: 0 });
    return page.tools.map((t) => t.name);
  } finally {
    client.close();
  }
}

async function stopCores(world: TestWorld): Promise<void> {
  for (const c of world.clients.splice(0)) await c.close().catch(() => {});
  for (const core of world.cores) if (core.exitCode === null && core.signalCode === null) core.kill('SIGTERM');
  await waitFor('the core and its servers to exit', () => world.pids().length === 0);
}

function cacheFiles(world: TestWorld): string[] {
  const dir = join(world.configDir, '.mcpd-state', 'metadata-cache');
  try {
    return readdirSync(dir).map((n) => join(dir, n));
  } catch {
    return [];
  }
}

const STORE = (alphaEnv: Record<string, string> = {}) => ({
  'profiles/default.yaml': profile(
    echoServer('alpha', { idleSeconds: 300 }, alphaEnv),
    echoServer('beta', { idleSeconds: 300 }, { ECHO_TOOL_COUNT: '3' }),
  ),
  'profiles/search.yaml':
    profile(echoServer('alpha', { idleSeconds: 300 }, alphaEnv), echoServer('beta', { idleSeconds: 300 }, { ECHO_TOOL_COUNT: '3' })) +
    'toolSearch:\n  pinned: [alpha__echo]\n',
  'callers.yaml': 'callers:\n  finder: search\n',
});

describe('metadata cache persisted across core restarts', () => {
  let world: TestWorld | undefined;
  afterEach(async () => world?.cleanup());

  it('lists from disk after a restart without starting a server; list_changed and a changed spec refresh it', async () => {
    const w = (world = new TestWorld(STORE()));
    await w.startCore();
    const first = await toolNames(w, 'anyone');
    expect(first).toContain('alpha__echo');
    expect(first).toContain('beta__t0002');
    expect(countProcs(w.tag, ECHO_SERVER)).toBe(2);
    await stopCores(w);

    const files = cacheFiles(w);
    expect(files).toHaveLength(2);
    for (const f of files) expect(statSync(f).mode & 0o777).toBe(0o600);

    await w.startCore();
    expect(await toolNames(w, 'anyone')).toEqual(first);
    expect(countProcs(w.tag, ECHO_SERVER)).toBe(0);

    // A call starts alpha; its list_changed (churn adds a tool) reaches the cache and the listing.
    const client = await w.gateway('anyone');
    expect(textOf(await client.callTool({ name: 'alpha__churn', arguments: {} }))).toBe('11');
    await waitFor('the new tool to be listed', async () => (await toolNames(w, 'anyone')).includes('alpha__extra10'));
    await stopCores(w);
    await w.startCore();
    expect(await toolNames(w, 'anyone')).toContain('alpha__extra10');
    expect(countProcs(w.tag, ECHO_SERVER)).toBe(0);
    await stopCores(w);

    // Another spec for alpha: another fingerprint, so the first listing starts it; its old file goes.
    const before = new Set(cacheFiles(w));
    w.write('profiles/default.yaml', STORE({ EXTRA: '1' })['profiles/default.yaml']);
    w.write('profiles/search.yaml', STORE({ EXTRA: '1' })['profiles/search.yaml']);
    await w.startCore();
    const fresh = await toolNames(w, 'anyone');
    expect(fresh).toContain('alpha__echo');
    expect(fresh).not.toContain('alpha__extra10');
    expect(countProcs(w.tag, ECHO_SERVER)).toBe(1);
    const after = cacheFiles(w);
    expect(after).toHaveLength(2);
    expect(after.filter((f) => before.has(f))).toHaveLength(1);
  });

  it('tool search mode: a small fixed list, search returns definitions, the call tool calls any tool; status shows counts and tokens', async () => {
    const w = (world = new TestWorld(STORE()));
    await w.startCore();
    const finder: Client = await w.gateway('finder');
    const listed = (await finder.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => n !== 'mcpd_finder')).toEqual(['mcpd_search_tools', 'mcpd_call_tool', 'alpha__echo']);

    const found = (await finder.callTool({ name: 'mcpd_search_tools', arguments: { query: 'tool t0001', limit: 3 } })) as ToolResult;
    expect(found.structuredContent?.tools.map((t) => t.name)[0]).toBe('beta__t0001');
    const echoed = await finder.callTool({ name: 'mcpd_call_tool', arguments: { name: 'beta__echo', arguments: { said: 'via search' } } });
    expect(JSON.parse(textOf(echoed))).toEqual({ said: 'via search' });
    const bad = (await finder.callTool({ name: 'mcpd_call_tool', arguments: {} })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/needs "name"/);

    const { stdout } = await promisify(execFile)(process.execPath, [MCPDCTL, '--socket', w.socket, 'status'], { env: w.env() });
    const row = stdout.split('\n').find((l) => l.startsWith('finder'));
    // 3 listed (search, call, pinned echo); the catalog holds both servers' 10 + 13 tools.
    expect(row).toMatch(/^finder\s+search\s+1\s+3\s+\d+\s+23 tools, ~\d+ tokens/);
    const tools = await promisify(execFile)(process.execPath, [MCPDCTL, '--socket', w.socket, 'tools', 'anyone'], { env: w.env() });
    expect(tools.stdout).toMatch(/23 tools, ~\d+ tokens \(estimated/);
  });
});

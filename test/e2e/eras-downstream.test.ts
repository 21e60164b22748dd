import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { echoServer, profile, server } from '../support/profiles.js';

// Issue 24, the downstream side: a 2025-11-25 client (SDK v1 through mcpdmcp) in front of a 2026-07-28
// server and a 2025-11-25 server behind the core. The 2026 server asks for input with InputRequiredResult;
// the client sees ordinary sampling / elicitation / roots requests, as from any 2025 server.

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const run = promisify(execFile);

describe('2025-11-25 client × 2026-07-28 and 2025-11-25 servers through the core', () => {
  let world: TestWorld;
  let client: Client;
  const asked: string[] = [];

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        server('modern', [process.execPath, `${FIXTURES}/servers/era2026.mjs`], { idleSeconds: 300, maxInstances: 1 }),
        echoServer('legacy', { idleSeconds: 300 }),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('eras', [], { sampling: {}, elicitation: {}, roots: { listChanged: true } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(`elicit:${req.params.message}`);
      return { action: 'accept', content: { ok: true, name: 'Grace' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const c = req.params.messages[0]?.content;
      asked.push(`sample:${c && 'text' in c ? String(c.text) : ''}`);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'a fine answer' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work/root-one' }] };
    });
  });
  afterAll(async () => world.cleanup());

  it('lists the tools of both servers', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['modern__confirm', 'modern__interview', 'legacy__echo']));
  });

  it('an elicitation asked with InputRequiredResult reaches the 2025 client as elicitation/create', async () => {
    const r = await client.callTool({ name: 'modern__confirm', arguments: { action: 'ship it' } });
    expect(textOf(r)).toBe('ship it: ok=true');
    expect(asked).toContain('elicit:Really ship it?');
  });

  it('sampling and roots likewise, and two rounds with the server requestState', async () => {
    expect(textOf(await client.callTool({ name: 'modern__summarize', arguments: { topic: 'eras' } }))).toBe('summary: a fine answer');
    expect(asked).toContain('sample:Summarize eras');
    expect(textOf(await client.callTool({ name: 'modern__roots', arguments: {} }))).toBe('roots: file:///work/root-one');
    expect(asked).toContain('roots');
    expect(textOf(await client.callTool({ name: 'modern__interview', arguments: {} }))).toBe('Grace was greeted: a fine answer');
    expect(asked).toContain('sample:Greet Grace');
  });

  it('progress, resources and prompts of the 2026 server, and a 2025 server as before', async () => {
    const steps: number[] = [];
    const r = await client.callTool({ name: 'modern__progress', arguments: {} }, undefined, { onprogress: (p) => steps.push(p.progress) });
    expect(textOf(r)).toBe('progress done (token given)');
    expect(steps.length).toBeGreaterThan(0);
    const resources = await client.listResources();
    const info = resources.resources.find((x) => x.name === 'info' || x.uri.includes('era'));
    expect(info).toBeDefined();
    const read = await client.readResource({ uri: (info as { uri: string }).uri });
    expect(JSON.stringify(read.contents)).toContain('fixture-era2026 speaks 2026-07-28');
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    const greet = prompts.find((n) => n.endsWith('greet')) ?? '';
    const got = await client.getPrompt({ name: greet, arguments: { name: 'Lin' } });
    expect(JSON.stringify(got.messages)).toContain('Hello Lin');
    expect(JSON.stringify(await client.callTool({ name: 'legacy__echo', arguments: { k: 'v' } }))).toContain('\\"k\\":\\"v\\"');
  });

  it('status records the era per pool: GetRuntimeStatus and mcpdctl status', async () => {
    const st = await world.calls().status();
    const version = (name: string) => st.pools.find((p) => p.references.some((r) => r.endsWith(`/${name}`)))?.protocolVersion;
    expect(version('modern')).toBe('2026-07-28');
    expect(version('legacy')).toBe('2025-11-25');
    const { stdout } = await run(process.execPath, [MCPDCTL, '--socket', world.socket, 'status'], { env: world.env(), timeout: 30_000 });
    expect(stdout).toMatch(/MCP/);
    expect(stdout).toMatch(/modern\S*\s+\S+\s+2026-07-28/);
    const one = await run(process.execPath, [MCPDCTL, '--socket', world.socket, 'status', 'modern'], { env: world.env(), timeout: 30_000 });
    expect(one.stdout).toContain('speaks MCP 2026-07-28 (2026 era: stateless requests, MRTR)');
  });
});

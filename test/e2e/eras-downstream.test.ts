import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { echoServer, profile, server } from '../support/profiles.js';

// The downstream side of the two eras: a 2025-11-25 client (SDK v1 through mcpdmcp) in front of a 2026-07-28
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

  it('hears a 2026 server outside calls through subscriptions/listen: list changes and resource updates', async () => {
    const toolsChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('modern__grown');
    expect(textOf(await client.callTool({ name: 'modern__grow', arguments: {} }))).toBe('grew');
    await toolsChanged;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('modern__grown');

    const info = (await client.listResources()).resources.find((r) => r.uri.startsWith('era://info'));
    await client.subscribeResource({ uri: info!.uri });
    expect(textOf(await client.callTool({ name: 'modern__touch', arguments: {} }))).toBe('touched');
    expect(await updated).toBe(info!.uri);
    await client.unsubscribeResource({ uri: info!.uri });
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

  const ctl = (...args: string[]) =>
    run(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env: world.env(), timeout: 60_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('mcpdctl call answers input requests from --input-responses FILE (one answer per method, or a list in turn)', async () => {
    const file = join(world.dir, 'answers.json');
    writeFileSync(file, JSON.stringify({ 'elicitation/create': { action: 'accept', content: { ok: true } } }));
    const confirm = await ctl('call', 'eras', 'modern__confirm', '--args', '{"action":"deploy"}', '--input-responses', file);
    expect(confirm.stdout).toBe('deploy: ok=true\n');
    expect(confirm.stderr).toContain('input request: elicitation/create');
    // Two rounds, the second call of each method taking the next answer of its list.
    const rounds = join(world.dir, 'rounds.json');
    writeFileSync(
      rounds,
      JSON.stringify({
        'elicitation/create': [{ action: 'accept', content: { name: 'Kim' } }],
        'sampling/createMessage': [{ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi Kim' } }],
      }),
    );
    const interview = await ctl('call', 'eras', 'modern__interview', '--input-responses', rounds);
    expect(interview.stdout).toBe('Kim was greeted: hi Kim\n');
  });

  it('mcpdctl call says which answer the file lacks', async () => {
    const file = join(world.dir, 'no-roots.json');
    writeFileSync(file, JSON.stringify({ 'elicitation/create': { action: 'decline' } }));
    const r = await ctl('call', 'eras', 'modern__roots', '--input-responses', file);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/no-roots\.json has no "roots\/list" answer; add one/);
  });

  it('mcpdctl call asks on a terminal', async () => {
    // script(1) gives mcpdctl a pseudo-terminal for stdin; the answers are typed into it.
    const cmd = [process.execPath, MCPDCTL, '--socket', world.socket, 'call', 'eras', 'modern__confirm', '--args', '{"action":"reboot"}']
      .map((a) => `'${a}'`)
      .join(' ');
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: world.env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    const typed: string[] = [];
    const onOutput = (d: Buffer) => {
      screen += d.toString();
      if (/Really reboot\?[\s\S]*ok[^\n]*\(y\/n\): $/.test(screen) && !typed.includes('ok')) {
        typed.push('ok');
        child.stdin.write('y\r');
      }
      if (/send these answers\? \[Y\/n, c = cancel\] $/.test(screen) && !typed.includes('send')) {
        typed.push('send');
        child.stdin.write('\r');
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(screen).toContain('the server asks: Really reboot?');
    expect(screen).toContain('reboot: ok=true');
    expect(code).toBe(0);
  });
});

describe('a 2026 server pool of two instances: each requestState retry reaches the instance that made it', () => {
  let world: TestWorld;
  afterAll(async () => world?.cleanup());

  it('two calls in flight at once on two instances both come back to their own instance', async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        server('pair', [process.execPath, `${FIXTURES}/servers/era2026.mjs`], { idleSeconds: 300, maxInstances: 2, maxConcurrent: 1 }),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    const client = await world.gateway('sticky', [], { elicitation: {} });
    // Both elicitations are answered only once both arrived: the two calls are then waiting on two instances.
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      if (asked.length === 2) release();
      await both;
      return { action: 'accept', content: {} };
    });
    const results = await Promise.all([1, 2].map(() => client.callTool({ name: 'pair__sticky', arguments: {} })));
    const pids = results.map((r) => /^same instance (\d+)$/.exec(textOf(r))?.[1]);
    expect(pids.every((p) => p !== undefined)).toBe(true);
    expect(new Set(pids).size).toBe(2);
    expect(asked.map((m) => m.replace(/\d+/, 'N'))).toEqual(['pid N?', 'pid N?']);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_DEFAULTS, type ServerSpec } from '../../../contract/model/spec.js';
import type { JsonObject } from '../../../shared/json.js';
import { createLauncher, type ManagedLauncher, type ServerRequestHandler } from './launcher.js';
import { fixturePath, fixtureSpec, waitFor } from '../../../../test/support/mcp-sessions.js';

// The core as the client of both MCP eras: server/discover decides, 2026 input requests
// (InputRequiredResult) reach the caller as ordinary requests and the downstream request is retried.

const launchers: ManagedLauncher[] = [];
afterEach(async () => {
  await Promise.all(launchers.splice(0).map((l) => l.shutdown()));
});

/** Answers input requests as a caller's client would, and records what it was asked. */
function answering(asked: [string, JsonObject][]): ServerRequestHandler {
  return async (_spec, instanceId, method, params): Promise<JsonObject> => {
    asked.push([method, params]);
    expect(instanceId).toBe('i1');
    if (method === 'elicitation/create') return { action: 'accept', content: { ok: true, name: 'Ann' } };
    if (method === 'sampling/createMessage')
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'hello Ann' } };
    if (method === 'roots/list') return { roots: [{ uri: 'file:///srv/a' }, { uri: 'file:///srv/b' }] };
    throw new Error(`unexpected ${method}`);
  };
}

function launcher(asked: [string, JsonObject][] = []): ManagedLauncher {
  const l = createLauncher({
    reaper: false,
    clientCapabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
    onServerRequest: answering(asked),
  });
  launchers.push(l);
  return l;
}

const textOf = (r: JsonObject): string => ((r.content as { text: string }[])[0] ?? { text: '' }).text;

describe('downstream era: stdio', () => {
  it('speaks 2026-07-28 to a server whose server/discover offers it, 2025-11-25 to one that refuses it', async () => {
    const l = launcher();
    const modern = await l.launch(fixtureSpec('modern', 'era2026.mjs'), { instanceId: 'i1' });
    expect(modern.era).toBe('modern');
    expect(modern.protocolVersion).toBe('2026-07-28');
    expect(modern.serverInfo.name).toBe('fixture-era2026');
    const legacy = await l.launch(fixtureSpec('legacy', 'echo.mjs'), { instanceId: 'i2' });
    expect(legacy.era).toBe('legacy');
    expect(legacy.protocolVersion).toBe('2025-11-25');
    expect(textOf(await modern.callTool('echo', { text: 'over 2026' }, { timeoutMs: 10_000 }))).toBe('over 2026');
    expect(JSON.stringify(await legacy.callTool('echo', { a: 1 }, { timeoutMs: 10_000 }))).toContain('"a":1');
  });

  it('a server that exits on server/discover is started again and spoken to as 2025-11-25', async () => {
    const events: string[] = [];
    const l = createLauncher({ reaper: false, onEvent: (m) => events.push(m) });
    launchers.push(l);
    const s = await l.launch(fixtureSpec('strict', 'echo.mjs', { env: { FIXTURE_EXIT_ON_DISCOVER: '1' } }), { instanceId: 'i1' });
    expect(s.era).toBe('legacy');
    expect(events.join('\n')).toMatch(/strict it exited on server\/discover; starting it again as a 2025-11-25 server/);
    expect(JSON.stringify(await s.callTool('echo', { b: 2 }, { timeoutMs: 10_000 }))).toContain('"b":2');
  });

  it('turns InputRequiredResult into ordinary requests to the caller and retries with the answers', async () => {
    const asked: [string, JsonObject][] = [];
    const s = await launcher(asked).launch(fixtureSpec('modern', 'era2026.mjs'), { instanceId: 'i1' });
    expect(textOf(await s.callTool('confirm', { action: 'drop table' }, { timeoutMs: 10_000 }))).toBe('drop table: ok=true');
    expect(asked[0]?.[0]).toBe('elicitation/create');
    expect(asked[0]?.[1].message).toBe('Really drop table?');
    expect(textOf(await s.callTool('summarize', { topic: 'eras' }, { timeoutMs: 10_000 }))).toBe('summary: hello Ann');
    expect(asked[1]?.[0]).toBe('sampling/createMessage');
    expect(textOf(await s.callTool('roots', {}, { timeoutMs: 10_000 }))).toBe('roots: file:///srv/a,file:///srv/b');
    expect(asked[2]?.[0]).toBe('roots/list');
  });

  it('two rounds: the server requestState comes back byte for byte on the retry', async () => {
    const asked: [string, JsonObject][] = [];
    const s = await launcher(asked).launch(fixtureSpec('modern', 'era2026.mjs'), { instanceId: 'i1' });
    expect(textOf(await s.callTool('interview', {}, { timeoutMs: 10_000 }))).toBe('Ann was greeted: hello Ann');
    expect(asked.map(([m]) => m)).toEqual(['elicitation/create', 'sampling/createMessage']);
  });

  it('a caller that cannot answer fails the call with the reason, and the session lives on', async () => {
    const l = createLauncher({
      reaper: false,
      clientCapabilities: { elicitation: {} },
      onServerRequest: async () => {
        throw new Error('no MCP client is connected to answer');
      },
    });
    launchers.push(l);
    const s = await l.launch(fixtureSpec('modern', 'era2026.mjs'), { instanceId: 'i1' });
    await expect(s.callTool('confirm', { action: 'x' }, { timeoutMs: 10_000 })).rejects.toThrow(/no MCP client is connected to answer/);
    expect(textOf(await s.callTool('echo', { text: 'still here' }, { timeoutMs: 10_000 }))).toBe('still here');
  });

  it('progress, log lines, resources and prompts of a 2026 server', async () => {
    const s = await launcher().launch(fixtureSpec('modern', 'era2026.mjs'), { instanceId: 'i1' });
    const steps: number[] = [];
    const r = await s.callTool('progress', {}, { timeoutMs: 10_000, onProgress: (p) => steps.push(p.progress) });
    expect(textOf(r)).toBe('progress done (token given)');
    await waitFor(() => steps.length >= 2, 'progress notifications');
    const logs: JsonObject[] = [];
    s.onNotification((method, params) => method === 'notifications/message' && logs.push(params));
    await s.callTool('log', { line: 'hello log' }, { timeoutMs: 10_000 });
    await waitFor(() => logs.some((p) => p.data === 'hello log'), 'the log line');
    const read = await s.request('resources/read', { uri: 'era://info' }, { timeoutMs: 10_000 });
    expect(JSON.stringify(read.contents)).toContain('fixture-era2026 speaks 2026-07-28');
    const note = await s.request('resources/read', { uri: 'era://note/7' }, { timeoutMs: 10_000 });
    expect(JSON.stringify(note.contents)).toContain('note 7');
    const prompt = await s.request('prompts/get', { name: 'greet', arguments: { name: 'Bo' } }, { timeoutMs: 10_000 });
    expect(JSON.stringify(prompt.messages)).toContain('Hello Bo');
    expect((await s.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['confirm', 'summarize', 'roots', 'interview']));
  });
});

describe('downstream era: Streamable HTTP', () => {
  let child: ChildProcess;
  let url = '';
  beforeAll(async () => {
    child = spawn(process.execPath, [fixturePath('era2026.mjs'), '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => /listening on (\S+)/.test(out), 'the HTTP fixture to listen', 20_000);
    url = /listening on (\S+)/.exec(out)?.[1] ?? '';
  });
  afterAll(async () => {
    child.kill('SIGKILL');
    await waitFor(() => child.exitCode !== null || child.signalCode !== null, 'HTTP fixture exit');
  });

  const httpSpec = (): ServerSpec => ({
    ...SPEC_DEFAULTS,
    name: 'modern-http',
    transport: 'streamable_http',
    cmd: [],
    env: {},
    url,
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
  });

  it('probes with a stateless server/discover, then calls and answers input requests over 2026 HTTP', async () => {
    const asked: [string, JsonObject][] = [];
    const s = await launcher(asked).launch(httpSpec(), { instanceId: 'i1' });
    expect(s.era).toBe('modern');
    expect(textOf(await s.callTool('echo', { text: 'over http' }, { timeoutMs: 10_000 }))).toBe('over http');
    expect(textOf(await s.callTool('interview', {}, { timeoutMs: 10_000 }))).toBe('Ann was greeted: hello Ann');
    expect(asked.map(([m]) => m)).toEqual(['elicitation/create', 'sampling/createMessage']);
  });
});

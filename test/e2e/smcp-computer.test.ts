import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, ECHO_SERVER, EVERYTHING, FIXTURES, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { TestAgent } from '../support/smcp-agent-peer.js';
import { computerJoined, smcpComputers } from '../support/smcp-core-computer.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';
import { must } from '../../internal/shared/must.js';

const KEY = 'smcp-test-key-0123456789';
const SECRET = 'everything-secret-value';
const DOCS_SERVER = join(DIST, 'cmd/mcpd-docs/main.js');
const WINDOW_SERVER = join(FIXTURES, 'servers/window-server.mjs');
const node = JSON.stringify(process.execPath);
const tagEnv = ['    env:', '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}'];

const PROFILE = [
  'inputs:',
  '  - { id: token, type: promptString, description: API token, password: true, default: hunter2-password }',
  '  - { id: mode, type: pickString, description: Mode, options: [fast, slow], default: fast }',
  'servers:',
  '  - name: everything',
  `    cmd: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]`,
  '    env:',
  '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
  '      EVERYTHING_SECRET: ${EVERYTHING_SECRET}',
  '      TOKEN: ${input:token}',
  '    defaultToolMeta: { tags: [demo], autoApply: false }',
  '    toolMeta:',
  '      echo: { autoApply: true, tags: [browser] }',
  '  - name: fx',
  `    cmd: [${node}, ${JSON.stringify(ECHO_SERVER)}]`,
  ...tagEnv,
  '  - name: win',
  `    cmd: [${node}, ${JSON.stringify(WINDOW_SERVER)}]`,
  '    strategy: singleton',
  ...tagEnv,
  '      WINDOW_HOST: com.example.win',
  '  - name: docs',
  `    cmd: [${node}, ${JSON.stringify(DOCS_SERVER)}, --host, docs.local, "\${MCPD_STORE_DIR}/../docs"]`,
  '    strategy: singleton',
  ...tagEnv,
  '',
].join('\n');

function runtimeYaml(url: string, computers: string[]): string {
  return [
    'metricsAddress: ""',
    'smcp:',
    `  url: ${url}`,
    '  apiKey: ${SMCP_API_KEY}',
    '  office: office-1',
    '  computers:',
    ...computers.map((c) => `    - ${c}`),
    '',
  ].join('\n');
}

type Status = pb.RuntimeStatus;
type ToolResult = {
  content: { type: string; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

describe('the core as an A2C-SMCP Computer (real mcpd-smcp, real core, real MCP servers)', () => {
  let world: TestWorld;
  let server: SmcpProc;
  let agent: TestAgent;
  let control: ReturnType<typeof createControlClient>;

  const status = () => callUnary<pb.GetRuntimeStatusRequest, Status>((q, cb) => control.getRuntimeStatus(q, cb), {});
  const computer = async (name: string) => (await smcpComputers(control)).find((c) => c.name === name);
  /** Lines of the fx server's stderr: its `hang` tool says when a call arrived, and it says when one was cancelled. */
  const seen = (line: string) => world.coreLog.join('').split(line).length - 1;
  /** Starts a `fx__hang` call and resolves once the server has it. */
  const startHang = async <T>(fields: Record<string, unknown> = {}, reqId?: string): Promise<{ pending: Promise<T | Error> }> => {
    const before = seen('fixture: hanging');
    const pending = agent
      .request<T>('client:tool_call', 'laptop', { tool_name: 'fx__hang', params: {}, timeout: 60, ...fields }, reqId)
      .catch((e: Error) => e);
    await waitFor('the hang call at the server', () => seen('fixture: hanging') > before);
    return { pending };
  };
  const joined = (name: string, joins = 1) => computerJoined(control, name, joins);

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers: { claude-desktop: default, vscode: default }\n', 'profiles/default.yaml': PROFILE });
    cpSync(join(FIXTURES, 'docs'), join(world.dir, 'docs'), { recursive: true }); // a folder this test may add to
    server = await startSmcpProc([], world.env({ SMCP_API_KEY: KEY }));
    world.write('runtime.yaml', runtimeYaml(server.url, ['{ name: laptop, caller: claude-desktop }']));
    await world.startCore({ SMCP_API_KEY: KEY, EVERYTHING_SECRET: SECRET });
    control = createControlClient(world.socket);
    await joined('laptop');
    agent = await TestAgent.join(server.url, KEY, 'office-1');
  });
  afterAll(async () => {
    agent?.close();
    control?.close();
    if (server) await server.stop();
    await world?.cleanup();
  });

  it('mcpdctl status shows the computer joined', () => {
    const out = execFileSync(process.execPath, [MCPDCTL, 'status', '--socket', world.socket], { encoding: 'utf8' });
    expect(out).toMatch(/SMCP COMPUTERS/);
    expect(out).toMatch(/laptop\s+claude-desktop\s+office-1\s+joined/);
  });

  it('client:get_tools converts the caller tools to SMCPTool with a2c_tool_meta and MCP_TOOL_ANNOTATION', async () => {
    const r = await agent.request<{
      tools: { name: string; description: string; params_schema: unknown; return_schema: unknown; meta: Record<string, unknown> }[];
      req_id: string;
    }>('client:get_tools', 'laptop', {}, 'tools-1');
    expect(r.req_id).toBe('tools-1');
    const byName = new Map(r.tools.map((t) => [t.name, t]));
    const echo = byName.get('everything__echo');
    expect(echo).toBeDefined();
    expect(echo!.description).toBe('Echoes back the input string');
    expect(echo!.params_schema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(echo!.return_schema).toBeNull();
    // Per-tool autoApply and tags win over the defaults field by field; a JSON string as Python dumps it.
    expect(echo!.meta.a2c_tool_meta).toBe('{"auto_apply": true, "alias": null, "tags": ["browser"], "ret_object_mapper": null}');
    expect(JSON.parse(echo!.meta.MCP_TOOL_ANNOTATION as string)).toEqual({
      title: null,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const structured = byName.get('everything__get-structured-content');
    expect(structured!.return_schema).toMatchObject({ type: 'object' });
    expect(structured!.meta.a2c_tool_meta).toBe('{"auto_apply": false, "alias": null, "tags": ["demo"], "ret_object_mapper": null}');
    // A server without any tool metadata: no a2c_tool_meta key at all.
    expect(byName.get('fx__echo')!.meta).not.toHaveProperty('a2c_tool_meta');
  });

  it('client:tool_call runs through the pools, with history and progress', async () => {
    const r = await agent.request<ToolResult>('client:tool_call', 'laptop', {
      tool_name: 'everything__echo',
      params: { message: 'hi' },
      timeout: 30,
    });
    expect(r.isError).toBeFalsy();
    expect(r.content[0]?.text).toBe('Echo: hi');
    const slow = await agent.request<ToolResult>('client:tool_call', 'laptop', {
      tool_name: 'fx__slow',
      params: { steps: 3, ms: 5 },
      timeout: 30,
    });
    expect(slow.content[0]?.text).toBe('done');
    expect(slow._meta?.a2c_progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    const unknown = await agent.request<ToolResult>('client:tool_call', 'laptop', { tool_name: 'nope', params: {}, timeout: 5 });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent?.code).toBe(4001);
  });

  it('a bad payload gets a 400 naming the field', async () => {
    const bad = await agent.request<{ code: number; message: string }>('client:get_desktop', 'laptop', { desktop_size: 'many' });
    expect(bad.code).toBe(400);
    expect(bad.message).toMatch(/desktop_size/);
    const badWindow = await agent.request<{ code: number; message: string }>('client:get_desktop', 'laptop', { window: 'http://x' });
    expect(badWindow.code).toBe(400);
    expect(badWindow.message).toMatch(/window/);
  });

  it('notify:tool_call_cancel cancels the downstream call and the ack says a2c_cancelled', async () => {
    const before = seen('fixture: cancelled hang');
    const { pending } = await startHang<ToolResult>({}, 'hang-1');
    agent.cancel('hang-1');
    expect(await pending).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
    await waitFor('the server saw notifications/cancelled', () => seen('fixture: cancelled hang') > before);
  });

  it('the request timeout is the call deadline: the agent gets the 4004 result and the server is cancelled', async () => {
    const before = seen('fixture: cancelled hang');
    const r = await agent.request<ToolResult>('client:tool_call', 'laptop', { tool_name: 'fx__hang', params: {}, timeout: 1 });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 4004, error_type: 'DEADLINE_EXCEEDED' });
    await waitFor('the server saw notifications/cancelled', () => seen('fixture: cancelled hang') > before);
  });

  it('client:get_desktop renders the caller desktop honouring desktop_size and window', async () => {
    const all = await agent.request<{ desktops: string[]; req_id: string }>('client:get_desktop', 'laptop', {}, 'desk-1');
    expect(all.req_id).toBe('desk-1');
    expect(all.desktops.some((d) => d.startsWith('window://com.example.win/editor?priority=80\n\neditor of com.example.win: v1'))).toBe(
      true,
    );
    const one = await agent.request<{ desktops: string[] }>('client:get_desktop', 'laptop', { desktop_size: 1 });
    expect(one.desktops).toHaveLength(1);
    const only = await agent.request<{ desktops: string[] }>('client:get_desktop', 'laptop', { window: 'window://com.example.win/status' });
    expect(only.desktops.length).toBe(1);
    expect(only.desktops[0]).toMatch(/^window:\/\/com\.example\.win\/status/);
  });

  it('client:get_finder and client:read_resource, with 4201–4204 as flat ErrorPayload codes', async () => {
    const f = await agent.request<{ documents: { doc_ref: string; uri: string; server: string }[]; total_count: number; req_id: string }>(
      'client:get_finder',
      'laptop',
      { keywords: [], limit: 2 },
      'find-1',
    );
    expect(f.req_id).toBe('find-1');
    expect(f.total_count).toBeGreaterThanOrEqual(3);
    expect(f.documents).toHaveLength(2);
    expect(f.documents[0]?.server).toBe('docs');
    const meta = await agent.request<{ contents: { uri: string; text: string }[] }>('client:read_resource', 'laptop', {
      uri: f.documents[0]?.uri,
    });
    expect(JSON.parse(must(meta.contents[0], 'the metadata').text)).toMatchObject({ doc_ref: f.documents[0]?.doc_ref });
    const missing = await agent.request<{ code: number; message: string }>('client:read_resource', 'laptop', {
      uri: 'dpe://docs.local/no-such-doc',
    });
    expect(missing.code).toBe(4201);
    const invalid = await agent.request<{ code: number }>('client:read_resource', 'laptop', { uri: 'dpe://docs.local/x/pages/-1' });
    expect(invalid.code).toBe(4204);
    const page = await agent.request<{ code: number }>('client:read_resource', 'laptop', { uri: `${f.documents[0]?.uri}/pages/9999` });
    expect(page.code).toBe(4202);
    const element = await agent.request<{ code: number }>('client:read_resource', 'laptop', {
      uri: `${f.documents[0]?.uri}/elements/no-such-element`,
    });
    expect(element.code).toBe(4203);
  });

  it('client:get_config lists the servers and inputs with secrets redacted', async () => {
    const c = await agent.request<{
      servers: Record<string, { type: string; server_parameters: { command: string; env: Record<string, string> } }>;
      inputs: Record<string, unknown>[];
    }>('client:get_config', 'laptop');
    expect(Object.keys(c.servers).sort()).toEqual(['docs', 'everything', 'fx', 'win']);
    expect(c.servers.everything?.type).toBe('stdio');
    expect(c.servers.everything?.server_parameters.command).toBe(process.execPath);
    expect(c.servers.everything?.server_parameters.env.EVERYTHING_SECRET).toBe('***');
    expect(c.inputs).toContainEqual({ id: 'token', type: 'promptString', description: 'API token', password: true, default: '***' });
    expect(c.inputs).toContainEqual({ id: 'mode', type: 'pickString', description: 'Mode', options: ['fast', 'slow'], default: 'fast' });
    const text = JSON.stringify(c);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hunter2-password');
  });

  it('tells the office when the tool list, the desktop and the finder change', async () => {
    let since = agent.notices.length;
    await agent.request('client:tool_call', 'laptop', { tool_name: 'fx__churn', params: {}, timeout: 30 });
    await agent.notice('notify:update_tool_list', since, (d) => d.computer === 'laptop');
    const tools = await agent.request<{ tools: { name: string }[] }>('client:get_tools', 'laptop');
    expect(tools.tools.some((t) => /^fx__extra\d+$/.test(t.name))).toBe(true);

    since = agent.notices.length;
    await agent.request('client:tool_call', 'laptop', {
      tool_name: 'win__add_window',
      params: { path: 'notes', text: 'new window', priority: 50 },
      timeout: 30,
    });
    await agent.notice('notify:update_desktop', since, (d) => d.computer === 'laptop');
    const desk = await agent.request<{ desktops: string[] }>('client:get_desktop', 'laptop');
    expect(desk.desktops.some((d) => d.includes('new window'))).toBe(true);

    // Calls that change nothing the caller sees send nothing: only the visible edit after them is told.
    since = agent.notices.length;
    await agent.request('client:tool_call', 'laptop', { tool_name: 'fx__echo', params: {}, timeout: 30 });
    await agent.request('client:tool_call', 'laptop', { tool_name: 'win__touch', params: {}, timeout: 30 });
    await agent.request('client:tool_call', 'laptop', {
      tool_name: 'win__set_window',
      params: { path: 'status', text: 'busy' },
      timeout: 30,
    });
    await agent.notice('notify:update_desktop', since, (d) => d.computer === 'laptop');
    expect(agent.notices.slice(since)).toEqual([{ event: 'notify:update_desktop', data: { computer: 'laptop' } }]);

    since = agent.notices.length;
    writeFileSync(join(world.dir, 'docs', 'smcp-added.md'), '---\ntitle: Added over SMCP\nkeywords: [smcp-added]\n---\n# Added\n');
    await agent.notice('notify:update_finder', since, (d) => d.computer === 'laptop');
    const found = await agent.request<{ documents: { title: string }[] }>('client:get_finder', 'laptop', { keywords: ['smcp-added'] });
    expect(found.documents.map((d) => d.title)).toEqual(['Added over SMCP']);
  });

  it('a profile edit that adds a server the core never ran sends one notify:update_tool_list', async () => {
    const since = agent.notices.length;
    const added = ['  - name: fx2', `    cmd: [${node}, ${JSON.stringify(ECHO_SERVER)}]`, ...tagEnv, ''].join('\n');
    world.write('profiles/default.yaml', PROFILE + added);
    await agent.notice('notify:update_tool_list', since, (d) => d.computer === 'laptop');
    const tools = await agent.request<{ tools: { name: string }[] }>('client:get_tools', 'laptop');
    expect(tools.tools.some((t) => t.name.startsWith('fx2__'))).toBe(true);
    // A second, real change after the new server has settled: its notice is the next one, nothing in between.
    const mid = agent.notices.length;
    await agent.request('client:tool_call', 'laptop', { tool_name: 'fx__churn', params: {}, timeout: 30 });
    await agent.notice('notify:update_tool_list', mid, (d) => d.computer === 'laptop');
    const toolNotices = agent.notices.slice(since).filter((n) => n.event === 'notify:update_tool_list');
    expect(toolNotices).toHaveLength(2);
  });

  it('an env-only edit of a server whose tools stay the same sends no notify:update_tool_list', async () => {
    // fx2 gets a spec of its own (until now it may share fx's pool, whose tools churn changed).
    const fx2 = (mode: string) =>
      ['  - name: fx2', `    cmd: [${node}, ${JSON.stringify(ECHO_SERVER)}]`, ...tagEnv, `      FX2_MODE: ${mode}`, ''].join('\n');
    const fx2Pool = async () => {
      const pools = (await status()).pools.filter((p) => p.references.includes('default/fx2'));
      const [only] = pools;
      return pools.length === 1 && only && !only.references.includes('default/fx') && only.instances.some((i) => i.state === 'ready')
        ? only.fingerprint
        : undefined;
    };
    const first = agent.notices.length;
    world.write('profiles/default.yaml', PROFILE + fx2('first'));
    await agent.notice('notify:update_tool_list', first, (d) => d.computer === 'laptop');
    await waitFor('fx2 to run on a pool of its own', async () => (await fx2Pool()) !== undefined);
    const before = await fx2Pool();

    const since = agent.notices.length;
    world.write('profiles/default.yaml', PROFILE + fx2('edited'));
    // The new spec (another fingerprint) has run and listed its tools: the list the office gets has settled.
    await waitFor('the edited fx2 to run', async () => ![undefined, before].includes(await fx2Pool()));
    // A real change after it: its notice is the only one since the edit.
    const mid = agent.notices.length;
    await agent.request('client:tool_call', 'laptop', { tool_name: 'fx__churn', params: {}, timeout: 30 });
    await agent.notice('notify:update_tool_list', mid, (d) => d.computer === 'laptop');
    expect(agent.notices.slice(since).filter((n) => n.event === 'notify:update_tool_list')).toHaveLength(1);
  });

  it('a config reload tells the office, and a reload adding or changing a computer reconnects only that one', async () => {
    const sidBefore = (await computer('laptop'))!.sid;
    const since = agent.notices.length;
    world.write('profiles/default.yaml', PROFILE.replace('default: fast', 'default: slow'));
    await agent.notice('notify:update_config', since, (d) => d.computer === 'laptop');

    world.write('runtime.yaml', runtimeYaml(server.url, ['{ name: laptop, caller: claude-desktop }', '{ name: desk, caller: vscode }']));
    await agent.notice('notify:enter_office', since, (d) => d.computer === 'desk');
    await joined('desk');
    const room = await agent.listRoom();
    expect(
      room
        .filter((s) => s.role === 'computer')
        .map((s) => s.name)
        .sort(),
    ).toEqual(['desk', 'laptop']);
    expect((await computer('laptop'))!.sid).toBe(sidBefore);

    // desk now serves another caller: only desk reconnects.
    const deskSid = (await computer('desk'))!.sid;
    world.write(
      'runtime.yaml',
      runtimeYaml(server.url, ['{ name: laptop, caller: claude-desktop }', '{ name: desk, caller: claude-desktop }']),
    );
    await waitFor('desk reconnected', async () => {
      const d = await computer('desk');
      return d?.state === 'joined' && d.sid !== deskSid;
    });
    expect((await computer('laptop'))!.sid).toBe(sidBefore);
  });

  it('a bad smcp section is rejected with file:line and the running computers stay', async () => {
    world.write('runtime.yaml', 'metricsAddress: ""\nsmcp:\n  url: not a url\n  office: office-1\n  computers: [{ name: laptop }]\n');
    await waitFor('the edit rejected', async () => (await status()).configIssues.length > 0);
    const issues = (await status()).configIssues.join('\n');
    expect(issues).toMatch(/runtime\.yaml:3:\d+: smcp\.url: "not a url" is not an http\(s\) URL/);
    expect(issues).toMatch(/runtime\.yaml:5:\d+: smcp\.computers\[0\]\.caller: computer has no caller/);
    expect((await computer('laptop'))!.state).toBe('joined');
  });

  it('a wrong key shows as refused in status, and the corrected key joins', async () => {
    const laptop = '{ name: laptop, caller: claude-desktop }';
    world.write('runtime.yaml', runtimeYaml(server.url, [laptop]).replace('${SMCP_API_KEY}', 'not-the-key'));
    await waitFor('laptop refused', async () => {
      const c = await computer('laptop');
      return c?.state === 'refused' && /unauthorized/.test(c.lastError);
    });
    expect(JSON.stringify(await status())).not.toContain(KEY);
    world.write('runtime.yaml', runtimeYaml(server.url, [laptop]));
    await joined('laptop');
  });

  it('re-joins its office by itself after the Server was killed and came back', async () => {
    const joinsBefore = (await computer('laptop'))!.joins;
    const before = seen('fixture: cancelled hang');
    const { pending: inFlight } = await startHang();
    const port = server.port;
    await server.stop('SIGKILL');
    await waitFor('the computer noticed', async () => (await computer('laptop'))!.state !== 'joined');
    // Nobody can receive that call's answer any more: the core stopped it downstream.
    await waitFor('the dropped call cancelled downstream', () => seen('fixture: cancelled hang') > before);
    expect(await inFlight).toBeInstanceOf(Error); // the agent's own connection went with the Server
    agent.close();
    server = await startSmcpProc(['--listen', `127.0.0.1:${port}`], world.env({ SMCP_API_KEY: KEY }));
    await joined('laptop', joinsBefore + 1);
    agent = await TestAgent.join(server.url, KEY, 'office-1');
    const r = await agent.request<ToolResult>('client:tool_call', 'laptop', {
      tool_name: 'everything__echo',
      params: { message: 'again' },
      timeout: 30,
    });
    expect(r.content[0]?.text).toBe('Echo: again');
  });

  it('a computer that dies mid-call gives the agent an error, not a hang', async () => {
    const { pending } = await startHang<{ code: number; message: string }>();
    control.close();
    for (const core of world.cores) core.kill('SIGKILL');
    const r = (await pending) as { code: number; message: string };
    expect(r.code).toBe(404);
    expect(r.message).toMatch(/laptop/);
  });
});

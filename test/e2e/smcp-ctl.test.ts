import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Server } from 'socket.io';
import { MCPDCTL } from '../support/paths.js';
import { TestComputer } from '../support/smcp-peers.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

const KEY = 'ctl-key';
let server: SmcpProc;
let pc: TestComputer;
const OFFICE = 'ctl-office';

function ctl(args: string[], env: NodeJS.ProcessEnv = { SMCP_API_KEY: KEY }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MCPDCTL, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  server = await startSmcpProc([], { SMCP_API_KEY: KEY });
  pc = new TestComputer(
    server.url,
    'pc',
    { apiKey: KEY },
    {
      'client:get_tools': (p) => ({
        tools: [{ name: 'echo', description: 'Echo back', params_schema: {}, return_schema: null }],
        req_id: p.req_id,
      }),
      'client:get_desktop': (p) => ({ desktops: [`window://app/w${String(p.desktop_size)}`], req_id: p.req_id }),
      'client:get_finder': (p) => ({
        documents: [
          { doc_ref: 'r', uri: 'dpe://d/r', file_uri: 'file:///r.md', file_type: 'md', title: 'Report', page_count: 1, server: 'docs' },
        ],
        total_count: 1,
        req_id: p.req_id,
      }),
      'client:get_config': () => ({ servers: {} }),
      'client:read_resource': (p) => ({ contents: [{ uri: p.uri, text: 'page text' }] }),
    },
  );
  expect(await pc.join(OFFICE)).toEqual([true, null]);
});
afterAll(async () => {
  pc.close();
  expect((await server.stop()).code).toBe(0);
});

describe('mcpdctl smcp', () => {
  it('lists the room and tools, with and without --json', async () => {
    const room = await ctl(['--json', 'smcp', server.url, '--office', OFFICE, '--name', 'cli', 'room']);
    expect(room.code).toBe(0);
    const sessions = (JSON.parse(room.stdout) as { sessions: { name: string; role: string }[] }).sessions;
    expect(sessions.map((s) => `${s.role}:${s.name}`).sort()).toEqual(['agent:cli', 'computer:pc']);
    const tools = await ctl(['smcp', server.url, '--office', OFFICE, 'tools', 'pc']);
    expect(tools.stdout).toMatch(/TOOL\s+DESCRIPTION\necho\s+Echo back\n1 tools on pc/);
  });

  it('calls a tool, and fails with the protocol code for an unknown computer', async () => {
    const ok = await ctl(['smcp', server.url, '--office', OFFICE, 'call', 'pc', 'echo', '--args', '{"message":"from the cli"}']);
    expect(ok).toMatchObject({ code: 0, stdout: 'from the cli\n' });
    const bad = await ctl(['smcp', server.url, '--office', OFFICE, '--json', 'call', 'nobody', 'echo']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ isError: true, _meta: { a2c_error: { code: 404 } } });
    const notJson = await ctl(['smcp', server.url, '--office', OFFICE, 'call', 'pc', 'echo', '--args', '{oops']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--args is not valid JSON/);
  });

  it('shows desktop, finder, config and a resource', async () => {
    expect((await ctl(['smcp', server.url, '--office', OFFICE, 'desktop', 'pc', '--size', '2'])).stdout).toContain('window://app/w2');
    const finder = await ctl(['smcp', server.url, '--office', OFFICE, 'finder', 'pc', '--keywords', 'a,b']);
    expect(finder.stdout).toMatch(/Report\s+md\s+docs\s+dpe:\/\/d\/r\n1 of 1 documents/);
    expect(pc.received.filter((r) => r.event === 'client:get_finder').at(-1)?.payload.keywords).toEqual(['a', 'b']);
    expect(JSON.parse((await ctl(['smcp', server.url, '--office', OFFICE, 'config', 'pc'])).stdout)).toEqual({ servers: {} });
    expect((await ctl(['smcp', server.url, '--office', OFFICE, 'read', 'pc', 'dpe://d/r'])).stdout).toBe('page text\n');
  });

  it('reports a wrong API key and a missing office clearly', async () => {
    const denied = await ctl(['smcp', server.url, '--office', OFFICE, 'room'], { SMCP_API_KEY: 'nope' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/\[401\] .*does not match/);
    for (const cmd of ['room', 'watch']) {
      const usage = await ctl(['smcp', server.url, cmd]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(new RegExp(`smcp ${cmd} needs --office O`));
    }
  });

  it("without --office joins the named computer's office, and says what to do when it cannot tell", async () => {
    const tools = await ctl(['--json', 'smcp', server.url, 'tools', 'pc']);
    expect(tools.code).toBe(0);
    expect((JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['echo']);
    const call = await ctl(['smcp', server.url, 'call', 'pc', 'echo', '--args', '{"message":"no office given"}']);
    expect(call).toMatchObject({ code: 0, stdout: 'no office given\n' });
    const unknown = await ctl(['smcp', server.url, 'desktop', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/\[404\] computer: no computer "nobody" is in any office on http/);
    // A second computer of the same name in another office: ambiguous.
    const twin = new TestComputer(server.url, 'pc', { apiKey: KEY });
    try {
      expect(await twin.join('ctl-other')).toEqual([true, null]);
      const both = await ctl(['smcp', server.url, 'tools', 'pc']);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/computer "pc" is in several offices \(ctl-office, ctl-other\): pass --office O/);
      const picked = await ctl(['smcp', server.url, '--office', 'ctl-other', 'config', 'pc']);
      expect(picked.code).toBe(0);
    } finally {
      twin.close();
    }
  });

  it('without --office on a Server that does not know server:find_computer, asks for --office', async () => {
    // Another SMCP Server (as the reference ones): it accepts the connection and never answers the extension.
    const http = createServer();
    const io = new Server(http, { serveClient: false });
    io.of('/smcp').on('connection', () => undefined);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const r = await ctl(['smcp', `http://127.0.0.1:${(http.address() as AddressInfo).port}`, 'tools', 'pc']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /did not say which office computer "pc" is in \(server:find_computer is an mcpd-smcp extension\): pass --office O/,
      );
    } finally {
      await new Promise<void>((resolve) => void io.close(() => resolve()));
    }
  });

  it('treats the empty ack python-socketio gives an unhandled event as no answer and asks for --office', async () => {
    // python-socketio acks an event it has no handler for at once, with no arguments.
    const http = createServer();
    const io = new Server(http, { serveClient: false });
    io.of('/smcp').on('connection', (s) =>
      s.onAny((...args: unknown[]) => {
        const ack = args.at(-1);
        if (typeof ack === 'function') (ack as () => void)();
      }),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      for (const cmd of ['tools', 'config']) {
        const r = await ctl(['smcp', `http://127.0.0.1:${(http.address() as AddressInfo).port}`, cmd, 'pc']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/did not say which office computer "pc" is in .*: pass --office O/);
        expect(r.stderr).not.toMatch(/expected an object answer/);
      }
    } finally {
      await new Promise<void>((resolve) => void io.close(() => resolve()));
    }
  });

  it('prints the error of a failed call that the Computer reports only in structuredContent', async () => {
    // The reference Computer's answer for an unknown tool: no content, the error in structuredContent.
    const ref = new TestComputer(
      server.url,
      'ref-pc',
      { apiKey: KEY },
      {
        'client:tool_call': (p) => ({
          content: [],
          isError: true,
          structuredContent: { error: `Tool '${String(p.tool_name)}' not found in any active server`, error_type: 'ValueError' },
        }),
      },
    );
    try {
      expect(await ref.join('ctl-ref')).toEqual([true, null]);
      const r = await ctl(['smcp', server.url, '--office', 'ctl-ref', 'call', 'ref-pc', 'nosuchtool']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("error: Tool 'nosuchtool' not found in any active server (ValueError)\n");
    } finally {
      ref.close();
    }
  });

  it('watches the office and prints each notification as a JSON line until interrupted', async () => {
    const child = spawn(process.execPath, [MCPDCTL, 'smcp', server.url, '--office', OFFICE, '--json', 'watch'], {
      env: { ...process.env, SMCP_API_KEY: KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const errLines = createInterface({ input: child.stderr! });
    const outLines = createInterface({ input: child.stdout! });
    await once(errLines, 'line');
    const firstLine = once(outLines, 'line');
    pc.socket.emit('server:update_desktop', { computer: 'pc' });
    expect(JSON.parse(((await firstLine) as [string])[0])).toEqual({ event: 'notify:update_desktop', data: { computer: 'pc' } });
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    expect((await exited)[0]).toBe(0);
  });
});

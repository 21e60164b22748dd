import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_DEFAULTS, type ServerSpec, type Transport } from '../../../contract/model/spec.js';
import { createLauncher } from './launcher.js';
import { everythingPath, waitFor } from '../../../../test/support/mcp-sessions.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function startEverything(mode: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingPath(), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(() => /listening on port|running on port/i.test(err), `server-everything ${mode} to listen`, 20_000);
  return { child, port };
}

function httpSpec(transport: Transport, url: string): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name: `ev-${transport}`,
    transport,
    cmd: [],
    env: {},
    url,
    headers: { 'x-test': '1' },
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
  };
}

const servers: ChildProcess[] = [];
let ports: Record<string, number> = {};

beforeAll(async () => {
  const [a, b] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
  servers.push(a.child, b.child);
  ports = { streamable_http: a.port, sse: b.port };
});

afterAll(async () => {
  for (const c of servers) {
    c.kill('SIGKILL');
    await waitFor(() => c.exitCode !== null || c.signalCode !== null, 'http server exit');
  }
});

describe('launcher over HTTP transports (server-everything)', () => {
  it.each([
    ['streamable_http', '/mcp'],
    ['sse', '/sse'],
  ] as const)('%s: handshake, paged listing, call, close', async (transport, path) => {
    const launcher = createLauncher({ reaper: false });
    const s = await launcher.launch(httpSpec(transport, `http://127.0.0.1:${ports[transport]}${path}`), { instanceId: 'h' });
    expect(s.pid).toBeUndefined();
    expect(typeof s.serverInfo.name).toBe('string');
    const tools = await s.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const r = await s.callTool('echo', { message: 'hi' }, { timeoutMs: 10_000 });
    expect(JSON.stringify(r.content)).toContain('hi');
    let closed = 0;
    s.onClose(() => closed++);
    await launcher.shutdown();
    await waitFor(() => closed === 1, 'onClose');
    expect(launcher.liveSessions()).toBe(0);
  });

  it('a dead HTTP server fails the call with UNAVAILABLE and ends the session', async () => {
    const { child, port } = await startEverything('streamableHttp');
    servers.push(child);
    const launcher = createLauncher({ reaper: false });
    const s = await launcher.launch(httpSpec('streamable_http', `http://127.0.0.1:${port}/mcp`), { instanceId: 'd' });
    const closes: (Error | undefined)[] = [];
    s.onClose((err) => closes.push(err));
    child.kill('SIGKILL');
    await waitFor(() => child.signalCode !== null, 'server death');
    const e = await s.callTool('echo', { message: 'x' }, { timeoutMs: 5000 }).catch((x: Error) => x);
    expect((e as { reason?: string }).reason).toBe('UNAVAILABLE');
    await waitFor(() => closes.length === 1, 'onClose after the failure');
    expect(closes[0]?.message).toMatch(/ev-streamable_http connection failed/);
    await launcher.shutdown();
  });

  it('an unreachable URL fails the start with UNAVAILABLE naming the server', async () => {
    const launcher = createLauncher({ reaper: false });
    const port = await freePort();
    const e = await launcher
      .launch(httpSpec('streamable_http', `http://127.0.0.1:${port}/mcp`), { instanceId: 'x' })
      .catch((x: Error) => x);
    expect((e as { reason?: string }).reason).toBe('UNAVAILABLE');
    expect((e as Error).message).toMatch(/ev-streamable_http failed to start/);
    await launcher.shutdown();
  });
});

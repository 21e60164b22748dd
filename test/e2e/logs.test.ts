import { execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ControlPlaneClient, LogEntry } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const LOGGER = resolve(FIXTURES, 'servers/logger.mjs');
const loggerServer = (name: string) =>
  [
    `  - name: ${name}`,
    `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(LOGGER)}]`,
    '    env:',
    '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
    '',
  ].join('\n');

type Msg = { level: string; logger?: string; data: unknown };

function collect(client: Client): Msg[] {
  const got: Msg[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params as Msg));
  return got;
}

describe('logs: MCP logging, StreamLogs and mcpdctl logs', () => {
  let world: TestWorld;
  let control: ControlPlaneClient;

  beforeAll(async () => {
    world = new TestWorld({
      // The logger spec is shared by both profiles under different names: one pool, two attributions.
      'profiles/default.yaml': profile(echoServer('echo'), loggerServer('talk')),
      'profiles/other.yaml': profile(loggerServer('chat')),
      'callers.yaml': 'callers:\n  alice: default\n  bob: other\n',
    });
    await world.startCore();
    control = createControlClient(world.socket);
  });
  afterAll(async () => {
    control?.close();
    await world.cleanup();
  });

  it('forwards downstream notifications/message at the level the client set, and nothing below', async () => {
    const c = await world.gateway('alice');
    const got = collect(c);
    await c.setLoggingLevel('warning');
    await c.callTool({ name: 'talk__log', arguments: { level: 'info', data: 'quiet-1' } });
    await c.callTool({ name: 'talk__log', arguments: { level: 'error', data: 'loud-1', logger: 'db' } });
    await waitFor('the error message', () => got.some((m) => m.data === 'loud-1'));
    // Same path, same order: had the info message been forwarded it would have arrived first.
    expect(got.some((m) => m.data === 'quiet-1')).toBe(false);
    expect(got.find((m) => m.data === 'loud-1')).toEqual({ level: 'error', logger: 'talk/db', data: 'loud-1' });

    await c.setLoggingLevel('debug');
    await c.callTool({ name: 'talk__log', arguments: { level: 'debug', data: { n: 2 } } });
    await waitFor('the debug message', () => got.some((m) => JSON.stringify(m.data) === '{"n":2}'));
    expect(got.find((m) => JSON.stringify(m.data) === '{"n":2}')).toEqual({ level: 'debug', logger: 'talk', data: { n: 2 } });
  });

  it('gives a client that never set a level warnings and worse only', async () => {
    const c = await world.gateway('alice');
    const got = collect(c);
    await c.callTool({ name: 'talk__log', arguments: { level: 'notice', data: 'quiet-3' } });
    await c.callTool({ name: 'talk__log', arguments: { level: 'warning', data: 'loud-3' } });
    await waitFor('the warning', () => got.some((m) => m.data === 'loud-3'));
    expect(got.some((m) => m.data === 'quiet-3')).toBe(false);
  });

  it('streams stderr lines attributed to the server over gRPC, scoped to the caller profile', async () => {
    const alice: LogEntry[] = [];
    const bob: LogEntry[] = [];
    const sa = control.streamLogs({ caller: 'alice', minLevel: 'info' });
    const sb = control.streamLogs({ caller: 'bob', minLevel: 'debug' });
    sa.on('data', (e: LogEntry) => alice.push(e));
    sb.on('data', (e: LogEntry) => bob.push(e));
    sa.on('error', () => {});
    sb.on('error', () => {});
    try {
      const c = await world.gateway('alice');
      await c.callTool({ name: 'echo__stderr', arguments: { line: 'marker-stderr-7' } });
      await waitFor('the stderr line on the alice stream', () => alice.some((e) => e.message === 'marker-stderr-7'));
      const line = alice.find((e) => e.message === 'marker-stderr-7');
      expect(line).toMatchObject({ source: 'stderr', server: 'echo', level: 'info', event: 'server.stderr' });
      expect(line?.instance).not.toBe('');

      // bob's profile shares the logger pool (as "chat") but has no echo server.
      const b = await world.gateway('bob');
      await b.callTool({ name: 'chat__log', arguments: { level: 'info', data: 'marker-note-8' } });
      await waitFor('the message on the bob stream', () => bob.some((e) => e.message === 'marker-note-8'));
      expect(bob.find((e) => e.message === 'marker-note-8')).toMatchObject({ source: 'notification', server: 'chat', level: 'info' });
      expect(bob.some((e) => e.message === 'marker-stderr-7' || e.server === 'echo')).toBe(false);
      await waitFor('the same message on the alice stream', () => alice.some((e) => e.message === 'marker-note-8'));
      expect(alice.find((e) => e.message === 'marker-note-8')?.server).toBe('talk');
    } finally {
      sa.cancel();
      sb.cancel();
    }
  });

  it('logs every tool call at info: caller, tool, outcome, duration, and never its arguments', async () => {
    const seen: LogEntry[] = [];
    const st = control.streamLogs({ caller: 'alice', minLevel: 'info' });
    st.on('data', (e: LogEntry) => seen.push(e));
    st.on('error', () => {}); // ends with cancel() below
    try {
      const c = await world.gateway('alice');
      const secret = `argument-${Date.now()}`;
      await c.callTool({ name: 'echo__echo', arguments: { secret } });
      // The stream starts with the caller's backlog, which holds the calls of the tests before this one.
      const isThisCall = (e: LogEntry) => e.event === 'tool call' && e.message.startsWith('alice called echo__echo');
      await waitFor('the call on the alice stream', () => seen.some(isThisCall));
      const call = seen.find(isThisCall);
      expect(call).toMatchObject({
        level: 'info',
        source: 'core',
        message: expect.stringMatching(/^alice called echo__echo: ok in \d+ ms$/),
      });
      const fields = JSON.parse(call?.fieldsJson.toString() || '{}') as Record<string, unknown>;
      expect(fields).toMatchObject({ caller: 'alice', tool: 'echo__echo', server: 'echo', outcome: 'ok', durationMs: expect.any(Number) });
      expect(JSON.stringify(seen)).not.toContain(secret);
    } finally {
      st.cancel();
    }
  });

  it('mcpdctl logs prints the backlog and exits; --follow keeps going until Ctrl-C', async () => {
    const run = promisify(execFile);
    const env = world.env();
    const text = await run(process.execPath, [MCPDCTL, '--socket', world.socket, 'logs', 'alice', '--level', 'info'], { env });
    expect(text.stdout).toMatch(/INFO\s+echo\/\S+ stderr marker-stderr-7/);
    const json = await run(process.execPath, [MCPDCTL, '--socket', world.socket, '--json', 'logs', 'bob', '--level', 'debug'], { env });
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { server?: string; message: string });
    expect(rows.some((r) => r.server === 'chat' && r.message === 'marker-note-8')).toBe(true);
    expect(rows.some((r) => r.server === 'echo')).toBe(false);
    await expect(
      run(process.execPath, [MCPDCTL, '--socket', world.socket, 'logs', 'alice', '--level', 'loud'], { env }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown log level "loud"; use one of debug, info/),
    });

    const follower = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, 'logs', 'alice', '--follow'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    follower.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => follower.on('exit', (code) => res(code)));
    try {
      await waitFor('the backlog', () => out.includes('marker-stderr-7'));
      const c = await world.gateway('alice');
      await c.callTool({ name: 'echo__stderr', arguments: { line: 'marker-live-9' } });
      await waitFor('a live entry', () => out.includes('marker-live-9'));
      follower.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (follower.exitCode === null) follower.kill('SIGKILL');
    }
    expect(() => process.kill(follower.pid as number, 0)).toThrow(/ESRCH/);
  });
});

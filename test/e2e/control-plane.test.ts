import { execFile, spawn } from 'node:child_process';
import { statSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from '@grpc/grpc-js';
import type { McpdError } from '../../internal/shared/errors.js';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { ControlCalls, collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { MCPD, REPO } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);
const BUF = resolve(REPO, 'node_modules/@bufbuild/buf-linux-x64/bin/buf');

describe('control plane over the unix socket', () => {
  let world: TestWorld;
  let client: ControlPlaneClient;
  let calls: ControlCalls;
  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    client = world.control();
    calls = world.calls();
  });
  afterAll(async () => world.cleanup());

  const curl = (path: string, body?: string, extra: string[] = []) =>
    run(
      BUF,
      [
        'curl',
        '--protocol',
        'grpc',
        '--http2-prior-knowledge',
        '--unix-socket',
        world.socket,
        ...extra,
        ...(body ? ['-d', body] : []),
        `http://localhost/${path}`,
      ],
      { timeout: 30_000 },
    );

  it('keeps the socket private: 0600 in a 0700 directory', () => {
    expect(statSync(world.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(world.socket)).mode & 0o777).toBe(0o700);
  });

  it('refuses a second core on the same socket with a clear message', async () => {
    const second = await run(process.execPath, [MCPD, '--config', world.configDir, '--socket', world.socket], { env: world.env() }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another mcpd is already serving .*control\.sock/);
    // The first core is untouched.
    expect((await calls.getInfo()).pid).toBe(world.cores[0]?.pid);
  });

  it('lists and calls methods through reflection with buf curl, an external client', async () => {
    const list = await curl('', undefined, ['--list-methods']);
    expect(list.stdout).toContain('mcpd.control.v1.ControlPlane/ListTools');
    expect(list.stdout).toContain('mcpd.control.v1.ControlPlane/Session');
    const tools = await curl('mcpd.control.v1.ControlPlane/ListTools', '{"caller":"curl"}');
    const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('fx__echo');
    // Health is the standard service; clients bring its well-known schema rather than reflect it.
    const healthProto = resolve(REPO, 'node_modules/grpc-health-check/proto/health/v1/health.proto');
    const health = await curl('grpc.health.v1.Health/Check', '{"service":"mcpd.control.v1.ControlPlane"}', ['--schema', healthProto]);
    expect(JSON.parse(health.stdout)).toEqual({ status: 'SERVING' });
  });

  it('streams progress, then the result', async () => {
    const progress: number[] = [];
    let result = '';
    await collectStream(
      client.callTool({
        caller: 'grpc',
        name: 'fx__slow',
        argumentsJson: Buffer.from('{"steps":3,"ms":10}'),
        routingKey: '',
        timeoutMs: 0,
      }),
      (ev) => {
        if (ev.progress) progress.push(ev.progress.progress);
        if (ev.resultJson) result = ev.resultJson.toString();
      },
    );
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(result).toContain('done');
  });

  /** Starts a long `slow` call and resolves once the server has reported progress (so it is running). */
  const startSlow = (deadline?: number) => {
    const stream = client.callTool(
      { caller: 'grpc', name: 'fx__slow', argumentsJson: Buffer.from('{"steps":1000,"ms":50}'), routingKey: '', timeoutMs: 0 },
      new Metadata(),
      deadline ? { deadline } : {},
    );
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const done = collectStream(stream, (ev) => ev.progress && running()).then(
      () => undefined,
      (e: McpdError) => e,
    );
    return { stream, started, done };
  };
  const cancellations = () => world.coreLog.join('').split('fixture: cancelled slow').length - 1;

  it('honours the gRPC deadline and tells the server the call was cancelled', async () => {
    const before = cancellations();
    const call = startSlow(Date.now() + 3000);
    await call.started;
    const err = await call.done;
    expect(err?.reason).toBe('DEADLINE_EXCEEDED');
    await waitFor('the server to see the cancellation', () => cancellations() > before);
  });

  it('cancels downstream when the client cancels the RPC', async () => {
    const before = cancellations();
    const call = startSlow();
    await call.started;
    call.stream.cancel();
    expect((await call.done)?.reason).toBe('CANCELLED');
    await waitFor('the server to see the cancellation', () => cancellations() > before);
  });

  it('rejects bad arguments with a clear error', async () => {
    const stream = client.callTool({
      caller: 'grpc',
      name: 'fx__echo',
      argumentsJson: Buffer.from('{not json'),
      routingKey: '',
      timeoutMs: 0,
    });
    const err = await collectStream(stream, () => {}).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/arguments_json is not valid JSON/);
  });

  it('reaps a registered caller whose process died', async () => {
    const short = spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 60000)']);
    await calls.registerCaller({ caller: 'ghost', pid: short.pid ?? 0, clientName: 'test' });
    expect((await calls.status()).callers.map((c) => c.caller)).toContain('ghost');
    short.kill('SIGKILL');
    await waitFor('the dead caller to be reaped', async () => !(await calls.status()).callers.some((c) => c.caller === 'ghost'), 15_000);
  });
});

describe('a core killed with SIGKILL leaves a stale socket', () => {
  let world: TestWorld;
  beforeAll(() => {
    world = new TestWorld({ 'profiles/default.yaml': 'servers: []\n', 'callers.yaml': 'callers: {}\n' });
  });
  afterAll(async () => world.cleanup());

  it('is detected and replaced by the next core', async () => {
    const first = await world.startCore();
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect(existsSync(world.socket)).toBe(true);
    const second = await world.startCore();
    const client = createControlClient(world.socket);
    try {
      expect((await new ControlCalls(client).getInfo()).pid).toBe(second.pid);
    } finally {
      client.close();
    }
  });
});

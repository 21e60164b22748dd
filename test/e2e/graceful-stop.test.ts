import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { io as ioClient } from 'socket.io-client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { freePort } from '../support/free-port.js';
import { TestAgent } from '../support/smcp-agent-peer.js';
import { computerJoined } from '../support/smcp-core-computer.js';
import { startSmcpProc } from '../support/smcp-server-proc.js';
import { ECHO_SERVER, EVERYTHING, MCPDCTL } from '../support/paths.js';
import { countProcs, pidsWithTag, waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile, WINDOW_SERVER, windowServer } from '../support/profiles.js';
import { callUnary, collectStream, ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { McpdError } from '../../internal/shared/errors.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

function exitOf(p: ChildProcess): Promise<number | null> {
  if (p.exitCode !== null) return Promise.resolve(p.exitCode);
  return new Promise((resolve) => p.once('exit', (code) => resolve(code)));
}

/** A store with the fault tools (and `extra` servers); `grace` sets shutdownGraceSeconds, `runtime` adds to runtime.yaml. */
function stopWorld(grace: number, extra: string[] = [], runtime = 'metricsAddress: ""\n'): TestWorld {
  return new TestWorld({
    'profiles/default.yaml': profile(
      echoServer('fx', { idleSeconds: 300, callTimeoutSeconds: 60 }, { FIXTURE_FAULT_TOOLS: '1' }),
      ...extra,
    ),
    'runtime.yaml': `shutdownGraceSeconds: ${grace}\n${runtime}`,
    'callers.yaml': 'callers: {}\n',
  });
}

/** What the core says to every face that asks for a new call of `method` during a stop. */
const refusal = (pid: number | undefined, method: string) =>
  new RegExp(
    `^the mcpd core \\(pid ${pid}\\) is stopping: new calls are refused \\(${method.replace('/', '\\/')}\\); retry once a core runs again`,
  );

/** Waits until the core counts `n` calls in flight (gRPC status). */
async function inFlightCalls(world: TestWorld, n: number): Promise<void> {
  const ctl = createControlClient(world.socket);
  try {
    const calls = new ControlCalls(ctl);
    await waitFor(`${n} call(s) in flight`, async () => (await calls.status()).inFlightCalls === n);
  } finally {
    ctl.close();
  }
}

/** Polls the status until the core says it is stopping (the watchable state the dashboard shows). */
async function stoppingStatus(world: TestWorld): Promise<pb.RuntimeStatus> {
  const ctl = createControlClient(world.socket);
  try {
    const calls = new ControlCalls(ctl);
    let st: pb.RuntimeStatus | undefined;
    await waitFor('the core to report stopping', async () => {
      st = await calls.status();
      return st.stopping;
    });
    return st as pb.RuntimeStatus;
  } finally {
    ctl.close();
  }
}

/** A call the test ends by creating `release`; resolves once the core counts it in flight. */
async function callInFlight(world: TestWorld, client: Client, release: string): Promise<{ pending: Promise<unknown> }> {
  const pending = client.callTool({ name: 'fx__wait', arguments: { path: release } }, undefined, { timeout: 120_000 });
  pending.catch(() => {});
  await inFlightCalls(world, 1);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { pending };
}

describe('graceful stop', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.cleanup();
    world = undefined;
  });

  it('SIGTERM refuses new calls, lets the in-flight call finish, then stops servers and exits 0', async () => {
    world = stopWorld(60);
    const core = await world.startCore();
    // No autostart: the test sees this core stop, not a new one started by the gateway.
    const client = await world.gateway('stopper', ['--no-autostart']);
    const release = join(world.dir, 'release-1');
    const { pending: inFlight } = await callInFlight(world, client, release);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);

    core.kill('SIGTERM');
    const st = await stoppingStatus(world);
    expect(st.inFlightCalls).toBe(1);
    expect(Number(st.stopDeadlineUnixMs)).toBeGreaterThan(Date.now());

    // A new call is refused at once, with a message that says why and what to do.
    await expect(client.callTool({ name: 'fx__echo', arguments: { a: 1 } })).rejects.toThrow(
      /UNAVAILABLE: the mcpd core \(pid \d+\) is stopping: new calls are refused \(tools\/call\); retry once a core runs again/,
    );
    // The gRPC CallTool (mcpdctl call, any gRPC client) is refused the same way.
    const grpc = createControlClient(world.socket);
    try {
      const stream = grpc.callTool({ caller: 'stopper', name: 'fx__echo', argumentsJson: Buffer.from('{}'), routingKey: '', timeoutMs: 0 });
      await expect(collectStream(stream, () => {})).rejects.toThrow(/is stopping: new calls are refused \(tools\/call\)/);
    } finally {
      grpc.close();
    }
    // Listing still answers while the core drains.
    expect((await client.listTools()).tools.some((t) => t.name === 'fx__echo')).toBe(true);
    expect(core.exitCode).toBeNull();

    writeFileSync(release, '');
    expect(textOf(await inFlight)).toBe('released');
    expect(await exitOf(core)).toBe(0);
    await waitFor('the server to be stopped', () => countProcs(world!.tag, ECHO_SERVER) === 0);
  });

  it('refuses gRPC ReadResource, GetPrompt and Complete during the grace period, as the Session does, while the in-flight call finishes', async () => {
    world = stopWorld(60, [everythingServer('every', { idleSeconds: 300 })]);
    const core = await world.startCore();
    const client = await world.gateway('reader', ['--no-autostart']);
    const grpc = createControlClient(world.socket);
    try {
      const json = (b: Buffer) => JSON.stringify(JSON.parse(b.toString('utf8')));
      const calls = {
        ReadResource: () =>
          callUnary<pb.ReadResourceRequest, pb.ReadResourceResponse>((r, cb) => grpc.readResource(r, cb), {
            caller: 'reader',
            uri: 'demo://resource/static/document/instructions.md',
          }).then((r) => json(r.resultJson)),
        GetPrompt: () =>
          callUnary<pb.GetPromptRequest, pb.GetPromptResponse>((r, cb) => grpc.getPrompt(r, cb), {
            caller: 'reader',
            name: 'every__args-prompt',
            argumentsJson: Buffer.from('{"city":"Lyon"}'),
          }).then((r) => json(r.resultJson)),
        Complete: () =>
          callUnary<pb.CompleteRequest, pb.CompleteResponse>((r, cb) => grpc.complete(r, cb), {
            caller: 'reader',
            paramsJson: Buffer.from(
              JSON.stringify({
                ref: { type: 'ref/prompt', name: 'every__completable-prompt' },
                argument: { name: 'department', value: 'Sa' },
              }),
            ),
          }).then((r) => json(r.resultJson)),
      };
      // Before the stop each answers: what the stop refuses below are calls that would have worked.
      expect(await calls.ReadResource()).toMatch(/instructions\.md/);
      expect(await calls.GetPrompt()).toMatch(/Lyon/);
      expect(await calls.Complete()).toMatch(/Sales/);

      const release = join(world.dir, 'release-reader');
      const { pending: inFlight } = await callInFlight(world, client, release);
      core.kill('SIGTERM');
      await stoppingStatus(world);
      const methods = { ReadResource: 'resources/read', GetPrompt: 'prompts/get', Complete: 'completion/complete' } as const;
      for (const [rpc, method] of Object.entries(methods) as [keyof typeof calls, string][]) {
        const e = (await calls[rpc]().catch((x: unknown) => x)) as McpdError;
        expect(e, rpc).toBeInstanceOf(McpdError);
        expect(e.reason, rpc).toBe('UNAVAILABLE');
        expect(e.message).toMatch(new RegExp(`the mcpd core \\(pid ${core.pid}\\) is stopping: new calls are refused \\(${method}\\)`));
      }
      // The refusals did not disturb the call in flight: it still finishes, then the core exits.
      expect((await new ControlCalls(grpc).status()).inFlightCalls).toBe(1);
      writeFileSync(release, '');
      expect(textOf(await inFlight)).toBe('released');
    } finally {
      grpc.close();
    }
    expect(await exitOf(core)).toBe(0);
    await waitFor('the servers to be stopped', () => countProcs(world!.tag, ECHO_SERVER) + countProcs(world!.tag, EVERYTHING) === 0);
  });

  it('cancels a call still running when shutdownGraceSeconds ends, with an error that says so', async () => {
    world = stopWorld(1);
    const core = await world.startCore();
    const client = await world.gateway('late', ['--no-autostart']);
    const { pending: inFlight } = await callInFlight(world, client, join(world.dir, 'never-created'));
    const began = Date.now();
    core.kill('SIGTERM');
    await expect(inFlight).rejects.toThrow(/is stopping: the call did not finish within the shutdown grace period and was cancelled/);
    // The grace period was honoured: the call was not cut off before it ended.
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000);
    expect(await exitOf(core)).toBe(0);
    await waitFor('the server to be stopped', () => countProcs(world!.tag, ECHO_SERVER) === 0);
    expect(world.coreLog.join('')).toMatch(/calls cancelled at the end of the shutdown grace period/);
  });

  it('mcpdctl stop does the same over the control plane and returns once the core has exited', async () => {
    world = stopWorld(60);
    const core = await world.startCore();
    const client = await world.gateway('ctl', ['--no-autostart']);
    const release = join(world.dir, 'release-3');
    const { pending: inFlight } = await callInFlight(world, client, release);

    const ctl = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, 'stop'], {
      env: world.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    ctl.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    ctl.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    await stoppingStatus(world);
    await waitFor('mcpdctl to say the stop began', () => /new calls are refused; 1 call\(s\) in flight get up to 60 s/.test(out));
    // A second stop request changes nothing and says so.
    const again = createControlClient(world.socket);
    try {
      const r = await new ControlCalls(again).stop();
      expect(r.started).toBe(false);
      expect(r.pid).toBe(core.pid);
    } finally {
      again.close();
    }
    await expect(client.callTool({ name: 'fx__pid', arguments: {} })).rejects.toThrow(/is stopping: new calls are refused/);
    expect(ctl.exitCode).toBeNull();

    writeFileSync(release, '');
    expect(textOf(await inFlight)).toBe('released');
    expect(await exitOf(ctl)).toBe(0);
    expect(out).toMatch(new RegExp(`stopping core pid ${core.pid}:`));
    expect(out).toMatch(new RegExp(`core pid ${core.pid} stopped`));
    // mcpdctl returned only after the core exited, and the core took its servers with it.
    expect(core.exitCode ?? (await exitOf(core))).toBe(0);
    expect(pidsWithTag(world.tag)).not.toContain(core.pid);
    await waitFor('the server to be stopped', () => countProcs(world!.tag, ECHO_SERVER) === 0);
  });

  it("refuses the dashboard socket's read, prompt, complete and call during the grace period with the same error, while its call in flight finishes", async () => {
    const port = await freePort();
    world = stopWorld(60, [everythingServer('every', { idleSeconds: 300 })], `metricsAddress: 127.0.0.1:${port}\n`);
    const core = await world.startCore();
    const { token } = JSON.parse(readFileSync(join(dirname(world.socket), 'dashboard.json'), 'utf8')) as { token: string };
    const page = ioClient(`http://127.0.0.1:${port}/app`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { authorization: `Bearer ${token}` },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        page.once('connect', resolve);
        page.once('connect_error', reject);
      });
      const ask = (event: string, args: object) =>
        page.timeout(60_000).emitWithAck(event, { caller: 'page', ...args }) as Promise<{ ok: boolean; value?: unknown; error?: string }>;
      const asks: Record<string, () => ReturnType<typeof ask>> = {
        'resources/read': () => ask('read', { uri: 'demo://resource/static/document/instructions.md' }),
        'prompts/get': () => ask('prompt', { name: 'every__args-prompt', args: { city: 'Lyon' } }),
        'completion/complete': () =>
          ask('complete', {
            params: { ref: { type: 'ref/prompt', name: 'every__completable-prompt' }, argument: { name: 'department', value: 'Sa' } },
          }),
        'tools/call': () => ask('call', { id: 'new', name: 'fx__echo', args: { a: 1 } }),
      };
      // Before the stop each answers: what the stop refuses below are calls that would have worked.
      for (const [method, run] of Object.entries(asks)) expect((await run()).ok, method).toBe(true);

      const release = join(world.dir, 'release-page');
      const inFlight = ask('call', { id: 'held', name: 'fx__wait', args: { path: release } });
      await inFlightCalls(world, 1);
      core.kill('SIGTERM');
      await stoppingStatus(world);
      for (const [method, run] of Object.entries(asks)) {
        const r = await run();
        expect(r.ok, method).toBe(false);
        expect(r.error, method).toMatch(refusal(core.pid, method));
      }
      // The refusals did not disturb the page's call in flight: it still finishes, then the core exits.
      writeFileSync(release, '');
      const held = await inFlight;
      expect(held.ok).toBe(true);
      expect(textOf(held.value)).toBe('released');
    } finally {
      page.close();
    }
    expect(await exitOf(core)).toBe(0);
  });

  it("refuses the SMCP Computer's client:read_resource and client:tool_call during the grace period with the same error, while its call in flight finishes", async () => {
    world = stopWorld(60, [everythingServer('every', { idleSeconds: 300 })]);
    const key = 'smcp-stop-key-0123456789';
    const router = await startSmcpProc([], world.env({ SMCP_API_KEY: key }));
    let agent: TestAgent | undefined;
    const control = createControlClient(world.socket);
    try {
      world.write(
        'runtime.yaml',
        `shutdownGraceSeconds: 60\nmetricsAddress: ""\nsmcp:\n  url: ${router.url}\n  apiKey: \${SMCP_API_KEY}\n  office: office-1\n  computers:\n    - { name: laptop, caller: pc }\n`,
      );
      const core = await world.startCore({ SMCP_API_KEY: key });
      await computerJoined(control, 'laptop');
      agent = await TestAgent.join(router.url, key, 'office-1');
      type Flat = { code?: number; message?: string; contents?: unknown[] };
      type Result = { content: { text: string }[]; isError?: boolean; structuredContent?: { error: string; error_type: string } };
      const read = () => agent!.request<Flat>('client:read_resource', 'laptop', { uri: 'demo://resource/static/document/instructions.md' });
      const call = (tool: string, params: object) =>
        agent!.request<Result>('client:tool_call', 'laptop', { tool_name: tool, params, timeout: 60 });
      expect((await read()).contents).toHaveLength(1);
      expect((await call('fx__echo', { a: 1 })).isError).toBeFalsy();

      const release = join(world.dir, 'release-agent');
      const inFlight = call('fx__wait', { path: release });
      await inFlightCalls(world, 1);
      core.kill('SIGTERM');
      await stoppingStatus(world);
      const refusedRead = await read();
      expect(refusedRead.message).toMatch(refusal(core.pid, 'resources/read'));
      const refusedCall = await call('fx__echo', { a: 2 });
      expect(refusedCall.isError).toBe(true);
      expect(refusedCall.structuredContent?.error_type).toBe('UNAVAILABLE');
      expect(refusedCall.structuredContent?.error).toMatch(refusal(core.pid, 'tools/call'));
      writeFileSync(release, '');
      expect(textOf(await inFlight)).toBe('released');
      expect(await exitOf(core)).toBe(0);
    } finally {
      agent?.close();
      control.close();
      await router.stop();
    }
  });

  it('refuses desktop and finder reads on every face during the grace period, starts no server for them, and waits for a desktop read in flight', async () => {
    const port = await freePort();
    const key = 'smcp-stop-key-0123456789';
    world = stopWorld(60);
    const router = await startSmcpProc([], world.env({ SMCP_API_KEY: key }));
    const release = join(world.dir, 'release-window-start');
    // `reader`'s window server holds its start until released: its desktop read stays in flight.
    world.write(
      'profiles/default.yaml',
      profile(windowServer('win', 'com.example.held', { idleSeconds: 300 }, { WINDOW_HOLD_START: release })),
    );
    // `other`'s window server has not started: a refused read must not start it.
    world.write('profiles/other.yaml', profile(windowServer('win2', 'com.example.cold', { idleSeconds: 300 })));
    // The SMCP Computer's caller `pc` shares `reader`'s profile: its watches must not start `other`'s server either.
    world.write('callers.yaml', 'callers:\n  other: other\n');
    world.write(
      'runtime.yaml',
      `shutdownGraceSeconds: 60\nmetricsAddress: 127.0.0.1:${port}\nsmcp:\n  url: ${router.url}\n  apiKey: \${SMCP_API_KEY}\n  office: office-1\n  computers:\n    - { name: laptop, caller: pc }\n`,
    );
    const grpc = createControlClient(world.socket);
    let agent: TestAgent | undefined;
    let page: ReturnType<typeof ioClient> | undefined;
    try {
      const core = await world.startCore({ SMCP_API_KEY: key });
      await computerJoined(grpc, 'laptop');
      agent = await TestAgent.join(router.url, key, 'office-1');
      const { token } = JSON.parse(readFileSync(join(dirname(world.socket), 'dashboard.json'), 'utf8')) as { token: string };
      page = ioClient(`http://127.0.0.1:${port}/app`, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        extraHeaders: { authorization: `Bearer ${token}` },
      });
      await new Promise<void>((resolve, reject) => {
        page!.once('connect', resolve);
        page!.once('connect_error', reject);
      });
      const desktop = (caller: string) =>
        callUnary<pb.GetDesktopRequest, pb.GetDesktopResponse>((r, cb) => grpc.getDesktop(r, cb), {
          caller,
          desktopSize: undefined,
          window: '',
        });
      const finder = (caller: string) =>
        callUnary<pb.GetFinderRequest, pb.GetFinderResponse>((r, cb) => grpc.getFinder(r, cb), {
          caller,
          keywords: [],
          fileType: '',
          offset: 0,
          limit: undefined,
        });
      const ask = (event: string) =>
        page!.timeout(60_000).emitWithAck(event, { caller: 'other' }) as Promise<{ ok: boolean; value?: unknown; error?: string }>;

      const held = desktop('reader');
      held.catch(() => {});
      await inFlightCalls(world, 1);
      core.kill('SIGTERM');
      await stoppingStatus(world);

      const refused = async (what: string, method: string, read: () => Promise<unknown>) => {
        const e = (await read().catch((x: unknown) => x)) as McpdError;
        expect(e, what).toBeInstanceOf(McpdError);
        expect(e.reason, what).toBe('UNAVAILABLE');
        expect(e.message, what).toMatch(refusal(core.pid, method));
      };
      await refused('gRPC GetDesktop', 'mcpd/desktop/read', () => desktop('other'));
      await refused('gRPC GetFinder', 'mcpd/finder/query', () => finder('other'));
      for (const [event, method] of [
        ['desktop', 'mcpd/desktop/read'],
        ['finder', 'mcpd/finder/query'],
      ] as const) {
        const r = await ask(event);
        expect(r.ok, `dashboard ${event}`).toBe(false);
        expect(r.error, `dashboard ${event}`).toMatch(refusal(core.pid, method));
      }
      const smcp = await agent.request<{ code?: number; message?: string }>('client:get_desktop', 'laptop', {});
      expect(smcp.message).toMatch(refusal(core.pid, 'mcpd/desktop/read'));
      // None of the refused reads started `other`'s server; the held one is the only window server.
      expect(countProcs(world.tag, WINDOW_SERVER)).toBe(1);
      // The stop waits for the desktop read in flight: released, it answers with the held server's windows.
      expect((await stoppingStatus(world)).inFlightCalls).toBe(1);
      writeFileSync(release, '');
      const view = await held;
      expect(view.windows.join('')).toMatch(/com\.example\.held/);
      expect(await exitOf(core)).toBe(0);
    } finally {
      page?.close();
      agent?.close();
      grpc.close();
      await router.stop();
    }
  });
});

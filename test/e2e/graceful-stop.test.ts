import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, EVERYTHING, MCPDCTL } from '../support/paths.js';
import { countProcs, pidsWithTag, waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile } from '../support/profiles.js';
import { callUnary, collectStream, ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { McpdError } from '../../internal/shared/errors.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

function exitOf(p: ChildProcess): Promise<number | null> {
  if (p.exitCode !== null) return Promise.resolve(p.exitCode);
  return new Promise((resolve) => p.once('exit', (code) => resolve(code)));
}

/** A store with the fault tools (and `extra` servers); `grace` sets shutdownGraceSeconds. */
function stopWorld(grace: number, ...extra: string[]): TestWorld {
  return new TestWorld({
    'profiles/default.yaml': profile(
      echoServer('fx', { idleSeconds: 300, callTimeoutSeconds: 60 }, { FIXTURE_FAULT_TOOLS: '1' }),
      ...extra,
    ),
    'runtime.yaml': `shutdownGraceSeconds: ${grace}\nmetricsAddress: ""\n`,
    'callers.yaml': 'callers: {}\n',
  });
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
  const ctl = createControlClient(world.socket);
  try {
    const calls = new ControlCalls(ctl);
    await waitFor('the call to be in flight', async () => (await calls.status()).inFlightCalls === 1);
  } finally {
    ctl.close();
  }
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
    world = stopWorld(60, everythingServer('every', { idleSeconds: 300 }));
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
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, MCPD } from '../support/paths.js';
import { cmdline, countProcs, pidsWithTag, waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { must } from '../../internal/shared/must.js';

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

describe('downstream faults', () => {
  let world: TestWorld;
  let client: Client;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300, callTimeoutSeconds: 5 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('tester');
  });
  afterAll(async () => world.cleanup());

  it('fails a call promptly when its server is SIGKILLed mid-call, then serves the next on a fresh instance', async () => {
    const before = textOf(await client.callTool({ name: 'fx__pid', arguments: {} }));
    const err = await client.callTool({ name: 'fx__kill9', arguments: {} }).then(
      () => undefined,
      (e: Error) => e,
    );
    // Promptly means the crash answered the call, not its 5 s deadline: the message says the server died.
    expect(err?.message).toMatch(/UNAVAILABLE: .*fx.*(exited|SIGKILL)/);
    expect(err?.message).not.toMatch(/did not answer/);
    const after = textOf(await client.callTool({ name: 'fx__pid', arguments: {} }));
    expect(after).not.toBe(before);
    expect(Number(after)).toBeGreaterThan(0);
  });

  it('fires the deadline on a hung server and recycles the instance', async () => {
    const before = textOf(await client.callTool({ name: 'fx__pid', arguments: {} }));
    await expect(client.callTool({ name: 'fx__freeze', arguments: {} })).rejects.toThrow(/did not answer tools\/call within \d+ ms/);
    await waitFor('the frozen instance to be stopped', () => !pidsWithTag(world.tag).includes(Number(before)), 15_000);
    const after = textOf(await client.callTool({ name: 'fx__pid', arguments: {} }));
    expect(after).not.toBe(before);
  });
});

describe('core killed with SIGKILL', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 }, { FIXTURE_GRANDCHILD: '1' })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('leaves no downstream process, and the gateway session carries on with a new core', async () => {
    const client = await world.gateway('survivor');
    const firstPid = Number(textOf(await client.callTool({ name: 'fx__pid', arguments: {} })));
    const serverProcs = pidsWithTag(world.tag).filter((p) => !cmdline(p).includes(MCPD) && !cmdline(p).includes('mcpdmcp'));
    // The echo server and the grandchild it spawned.
    expect(serverProcs.length).toBeGreaterThanOrEqual(2);
    const core = must(world.cores[0], 'the core');
    core.kill('SIGKILL');
    await waitFor(
      'every downstream process of the killed core to exit',
      () => serverProcs.every((p) => !pidsWithTag(world.tag).includes(p)),
      15_000,
    );
    // The gateway starts a new core on its own and the same MCP session keeps working. A call that reaches the
    // gateway before it has noticed the crash is written to the dead socket and fails UNAVAILABLE (a loaded
    // machine shows it); the client's next call goes to the new core. Any other failure fails the test.
    let r: Awaited<ReturnType<typeof client.callTool>> | undefined;
    await waitFor(
      'a call through the same session to succeed',
      async () => {
        r = await client.callTool({ name: 'fx__pid', arguments: {} }).catch((e: Error) => {
          if (!/UNAVAILABLE: mcpd core at .*: (EPIPE|ECONNRESET)/.test(e.message)) throw e;
          return undefined;
        });
        return r !== undefined;
      },
      30_000,
    );
    expect(Number(textOf(must(r, 'the result')))).not.toBe(firstPid);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);
    const newCores = pidsWithTag(world.tag).filter((p) => cmdline(p).includes(MCPD) && p !== core.pid);
    expect(newCores.length).toBe(1);
  });
});

describe('a crash-looping server', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      // minReady makes the pool restart it on its own; it exits at start every time.
      'profiles/default.yaml': profile(echoServer('loop', { minReady: 1 }, { FIXTURE_EXIT_AT_START: '3' })),
      'runtime.yaml': 'crashLoopThreshold: 3\ncrashLoopWindowSeconds: 60\nrestartBackoffMaxSeconds: 1\nmetricsAddress: ""\n',
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('is restarted with backoff, then suspended, and calls say so until a reload', async () => {
    const ctl = createControlClient(world.socket);
    try {
      const calls = new ControlCalls(ctl);
      let pool: { suspended: boolean; suspendedReason: string; restarts: number } | undefined;
      await waitFor(
        'the breaker to suspend the spec',
        async () => {
          pool = (await calls.status()).pools[0];
          return pool?.suspended === true;
        },
        30_000,
      );
      expect(pool?.suspendedReason).toMatch(/crash/i);
      const client = await world.gateway('victim');
      await expect(client.callTool({ name: 'loop__echo', arguments: {} })).rejects.toThrow(/suspended|SPEC_SUSPENDED|could not be listed/i);
      // Reload is how an operator says "try again": the pool is resumed (and will crash again).
      const r = await calls.reload();
      expect(r.applied).toBe(true);
      expect((await calls.status()).pools[0]?.suspended).toBe(false);
    } finally {
      ctl.close();
    }
  });
});

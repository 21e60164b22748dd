import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, MCPD } from '../support/paths.js';
import { cmdline, countProcs, pidsWithTag, waitFor } from '../support/procs.js';
import { rssMiB } from '../support/memory.js';
import { echoServer, profile } from '../support/profiles.js';
import { must } from '../../internal/shared/must.js';

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');
const faultServer = (extra: Record<string, string | number> = {}, env: Record<string, string> = {}) =>
  profile(echoServer('fx', { idleSeconds: 300, callTimeoutSeconds: 60, ...extra }, { FIXTURE_FAULT_TOOLS: '1', ...env }));

function corePid(world: TestWorld): number {
  const pid = pidsWithTag(world.tag).find((p) => cmdline(p).includes(MCPD));
  if (pid === undefined) throw new Error('no core running');
  return pid;
}

describe('heavy downstream faults', () => {
  let world: TestWorld;
  let client: Client;
  let listChanged = 0;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': faultServer(),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('heavy');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.callTool({ name: 'fx__pid', arguments: {} });
  });
  afterAll(async () => world.cleanup());

  it('a 50 MB result gives the caller a clear error, memory stays bounded, and the next call works', async () => {
    const core = corePid(world);
    const before = rssMiB(core);
    const peaks: number[] = [];
    for (let i = 0; i < 3; i++) {
      const err = await client.callTool({ name: 'fx__big', arguments: { mb: 50 } }, undefined, { timeout: 120_000 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(
        /UNAVAILABLE: server fx was stopped because it wrote a JSON-RPC message of more than 10 MiB \(messages that large are refused to keep memory bounded; have the tool return less\) during the call/,
      );
      peaks.push(rssMiB(core));
      expect(textOf(await client.callTool({ name: 'fx__echo', arguments: { i } }))).toBe(JSON.stringify({ i }));
    }
    // Three times the same fault does not grow the core three times: what a result buffers is bounded.
    expect(must(peaks[2], 'the third peak') - before).toBeLessThan(150);
    process.stdout.write(`50 MB result ×3: core RSS ${before.toFixed(1)} → ${peaks.map((p) => p.toFixed(1)).join(' → ')} MiB\n`);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);
  });

  it('malformed JSON lines from a server are skipped: the call answers and the server keeps running', async () => {
    const pid = textOf(await client.callTool({ name: 'fx__pid', arguments: {} }));
    expect(textOf(await client.callTool({ name: 'fx__garbage', arguments: {} }))).toBe('after garbage');
    expect(textOf(await client.callTool({ name: 'fx__pid', arguments: {} }))).toBe(pid);
    // Each bad line is logged against the server (the caller's logs show it), not dropped silently.
    await waitFor(
      'the core to log the bad lines',
      () => (world.coreLog.join('').match(/\[mcpd\] server fx wrote a line that is not JSON-RPC/g) ?? []).length >= 3,
    );
  });

  it('a storm of 10,000 list_changed reaches the client as a handful, with the final list, and memory stays bounded', async () => {
    const core = corePid(world);
    const before = rssMiB(core);
    // The client has a list to be told about (a gateway forwards only changes of what it gave the client).
    await client.listTools();
    listChanged = 0;
    const listsBefore = Number(textOf(await client.callTool({ name: 'fx__lists', arguments: {} })));
    const began = Date.now();
    expect(
      textOf(await client.callTool({ name: 'fx__storm', arguments: { count: 10_000, change: true } }, undefined, { timeout: 120_000 })),
    ).toBe('10000');
    // Wait for the nudge itself, not for a polled list: a client that already fetched the new list is
    // rightly not nudged (the gateway forwards only changes of what it gave the client), so polling here
    // would race the notification and could leave nothing to count.
    await waitFor('the client to be told its tool list changed', () => listChanged >= 1, 30_000);
    const stormMs = Date.now() - began;
    expect((await client.listTools()).tools.some((t) => t.name.startsWith('fx__storm'))).toBe(true);
    // The core coalesces the storm: a few re-listings of the server, not one per notification.
    const relists = Number(textOf(await client.callTool({ name: 'fx__lists', arguments: {} }))) - listsBefore;
    expect(relists).toBeGreaterThanOrEqual(1);
    expect(relists).toBeLessThanOrEqual(20);
    // Only real changes of the caller's list are forwarded: one here (a few if a refresh straddles the change).
    expect(listChanged).toBeLessThanOrEqual(5);
    const afterStorm = rssMiB(core);
    expect(afterStorm - before).toBeLessThan(100);
    process.stdout.write(`storm: core RSS ${before.toFixed(1)} → ${afterStorm.toFixed(1)} MiB\n`);
    expect(textOf(await client.callTool({ name: 'fx__echo', arguments: { after: 'storm' } }))).toBe(JSON.stringify({ after: 'storm' }));
    process.stdout.write(
      `storm of 10,000 list_changed: ${stormMs} ms until the client was told of the new list, ${relists} re-listings, ${listChanged} forwarded\n`,
    );
  });
});

describe('core SIGKILL during 16 concurrent calls', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': faultServer({ maxConcurrent: 16 }),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('every call fails promptly with a clear error, no server is orphaned, and the gateways carry on with a new core', async () => {
    const clients = await Promise.all([0, 1, 2, 3].map((i) => world.gateway(`c${i}`)));
    const oldServers = () => pidsWithTag(world.tag).filter((p) => cmdline(p).includes(ECHO_SERVER));
    await clients[0]?.callTool({ name: 'fx__pid', arguments: {} });
    const calls = clients.flatMap((c) =>
      [0, 1, 2, 3].map(() =>
        c.callTool({ name: 'fx__wait', arguments: { path: '/nonexistent/never' } }, undefined, { timeout: 120_000 }).then(
          () => new Error('answered'),
          (e: Error) => e,
        ),
      ),
    );
    const core = must(world.cores[0], 'the core');
    await waitFor('16 calls in flight on the server', async () => {
      const { ControlCalls, createControlClient } = await import('../../internal/contract/grpc/control-client.js');
      const ctl = createControlClient(world.socket);
      try {
        return (await new ControlCalls(ctl).status()).inFlightCalls === 16;
      } finally {
        ctl.close();
      }
    });
    const servers = oldServers();
    expect(servers.length).toBeGreaterThanOrEqual(1);
    const killedAt = Date.now();
    core.kill('SIGKILL');
    const errors = await Promise.all(calls);
    const failMs = Date.now() - killedAt;
    for (const e of errors) expect(e.message).toMatch(/UNAVAILABLE: .*(core closed the session|session .*closed|core .*(exited|gone))/i);
    // Promptly: the broken session answered them, not a timeout.
    expect(failMs).toBeLessThan(30_000);
    await waitFor('the killed core’s servers to exit', () => servers.every((p) => !oldServers().includes(p)), 15_000);
    // The gateways start one new core between them, and every session works again.
    for (const c of clients) expect(Number(textOf(await c.callTool({ name: 'fx__pid', arguments: {} })))).toBeGreaterThan(0);
    // Each gateway may have started a core; all but the one that serves refuse and exit (a late starter may
    // still be loading when the calls answer). Wait for that outcome; two serving cores never settle.
    const newCores = () => pidsWithTag(world.tag).filter((p) => cmdline(p).includes(MCPD) && p !== core.pid);
    await waitFor('the gateways’ extra cores to refuse and exit, leaving one', () => newCores().length === 1);
    expect(newCores()).toEqual([(await world.calls().getInfo()).pid]);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);
    process.stdout.write(`core SIGKILL with 16 calls in flight: all failed within ${failMs} ms\n`);
  });
});

describe('100 store edits per second', () => {
  let world: TestWorld;
  const store = (marker: string) => faultServer({}, { MARKER: marker });
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': store('start'),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('calls keep answering or fail clearly, the last valid edit wins, and no pool or process is left over', async () => {
    const client = await world.gateway('editor');
    expect(textOf(await client.callTool({ name: 'fx__env', arguments: { name: 'MARKER' } }))).toBe('start');
    const core = corePid(world);
    const before = rssMiB(core);
    // 100 edits in about a second: each a new spec (a new pool), every tenth invalid (rejected whole).
    let edits = 0;
    const editing = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        edits++;
        world.write('profiles/default.yaml', edits % 10 === 0 ? 'servers: [this is: not valid\n' : store(`edit-${edits}`));
        if (edits === 100) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    const outcomes: string[] = [];
    const calling = (async () => {
      while (edits < 100) {
        outcomes.push(
          await client.callTool({ name: 'fx__env', arguments: { name: 'MARKER' } }).then(
            (r) => `ok ${textOf(r)}`,
            (e: Error) => e.message,
          ),
        );
      }
    })();
    await Promise.all([editing, calling]);
    world.write('profiles/default.yaml', store('final'));
    await waitFor(
      'the last edit to be applied',
      async () => {
        const r = await client.callTool({ name: 'fx__env', arguments: { name: 'MARKER' } }).catch(() => undefined);
        return r !== undefined && textOf(r) === 'final';
      },
      30_000,
    );
    // Every call answered with a marker of some edit, or failed with an error that says why.
    for (const o of outcomes)
      // (A call whose pool a reload replaced is retried on the new pool: "no server pool" is not an answer.)
      expect(o).toMatch(/^ok (start|edit-\d+)$|UNAVAILABLE: .*(no longer available|was stopped|removed|reload)/);
    expect(outcomes.filter((o) => o.startsWith('ok ')).length).toBeGreaterThan(0);
    await waitFor('superseded pools to stop their servers', () => countProcs(world.tag, ECHO_SERVER) === 1, 30_000);
    const { ControlCalls, createControlClient } = await import('../../internal/contract/grpc/control-client.js');
    const ctl = createControlClient(world.socket);
    try {
      const st = await new ControlCalls(ctl).status();
      expect(st.pools).toHaveLength(1);
      expect(st.configIssues).toEqual([]);
    } finally {
      ctl.close();
    }
    const afterEdits = rssMiB(core);
    expect(afterEdits - before).toBeLessThan(100);
    process.stdout.write(
      `100 store edits: ${outcomes.length} calls meanwhile, ${outcomes.filter((o) => !o.startsWith('ok ')).length} failed clearly; ` +
        `core RSS ${before.toFixed(1)} → ${afterEdits.toFixed(1)} MiB\n`,
    );
  });
});

describe('garbage on the control socket', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': faultServer(),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('random bytes (after a Session preface, or alone) close that connection only; the core keeps serving', async () => {
    const { connect } = await import('node:net');
    const { randomBytes } = await import('node:crypto');
    const { SESSION_PREFACE } = await import('../../internal/contract/session/session-framing.js');
    // (Garbage after a valid HTTP/2 preface is left to grpc-js, which keeps such a connection open.)
    const prefaces = [SESSION_PREFACE, Buffer.alloc(0), Buffer.from('PRI * HTTP/1.1\r\n', 'latin1')];
    const core = corePid(world);
    for (let i = 0; i < 60; i++) {
      const socket = connect(world.socket);
      const closed = new Promise((r) => socket.once('close', r));
      socket.on('error', () => {});
      // Frames of random bytes, some claiming a length far over the limit.
      const header = Buffer.alloc(4);
      header.writeUInt32BE(i % 4 === 0 ? 0xffffffff : 16, 0);
      socket.end(Buffer.concat([must(prefaces[i % 3], 'preface'), header, randomBytes(16 + i)]));
      await closed;
    }
    const client = await world.gateway('after-garbage');
    expect(textOf(await client.callTool({ name: 'fx__echo', arguments: { ok: true } }))).toBe(JSON.stringify({ ok: true }));
    expect(corePid(world)).toBe(core);
  });
});

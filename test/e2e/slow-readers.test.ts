import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FrameReader, SESSION_PREFACE, frame } from '../../internal/contract/session/session-framing.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile } from '../support/profiles.js';
import { SessionClientMessage, SessionServerMessage } from '../../internal/contract/gen/mcpd/control/v1/session.js';

/** Resident memory of a live process, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

const encode = (m: Parameters<typeof SessionClientMessage.encode>[0]) => frame(SessionClientMessage.encode(m).finish());

describe('a Session client that stops reading cannot grow the core without bound', () => {
  let world: TestWorld;
  let corePid: number;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
    });
    corePid = (await world.startCore()).pid!;
    // Warm up: the listing is cached and the server is running before the baseline is taken.
    const warm = await SessionClient.connect(world.socket, { caller: 'warm', pid: process.pid, clientName: 't', previousSessionId: '' });
    await warm.request('tools/list', {});
    warm.close();
  });
  afterAll(async () => world.cleanup());

  it('20,000 pipelined tools/list requests whose answers are never read', async () => {
    const before = rssMb(corePid);
    const sock: Socket = connect(world.socket);
    await new Promise<void>((r) => sock.once('connect', r));
    sock.pause(); // never read a byte
    sock.write(SESSION_PREFACE);
    sock.write(encode({ hello: { caller: 'sloth', pid: process.pid, clientName: 'sloth', previousSessionId: '' } }));
    const N = 20_000;
    const params = Buffer.from('{}');
    for (let id = 1; id <= N; id++) sock.write(encode({ request: { id, method: 'tools/list', paramsJson: params, timeoutMs: 0 } }));
    // Either the core read everything (and holds every answer), or it stopped reading and said so.
    await waitFor(
      'the core to read all requests or to stop reading',
      () => sock.writableLength === 0 || world.coreLog.join('').includes('session output over its limit'),
      60_000,
    );
    // A bystander is still served, after the core went through what it had read.
    const other = await SessionClient.connect(world.socket, { caller: 'busy', pid: process.pid, clientName: 't', previousSessionId: '' });
    expect(await other.request('ping', {})).toEqual({});
    other.close();
    const grown = rssMb(corePid) - before;
    sock.destroy();
    // Unbounded, the answers alone are hundreds of MB; the per-session limit is a few MB.
    expect(grown).toBeLessThan(120);
  });
});

describe('a Session that asked for logs and stopped reading cannot grow the core without bound', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': `metricsAddress: ""\n${process.env.MCPD_TEST_OUTBOUND ? `sessionOutboundBytes: ${process.env.MCPD_TEST_OUTBOUND}\n` : ''}`,
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  // ~600 MB of log through the core is minutes of CPU on a loaded two-core machine, not seconds: the
  // default 60 s test timeout failed it there while nothing was wrong, and so did 180 s with the machine
  // running three other floods at once.
  it('a server logging ~600 MB while the session never reads', { timeout: 360_000 }, async () => {
    const busy = await SessionClient.connect(world.socket, { caller: 'busy', pid: process.pid, clientName: 't', previousSessionId: '' });
    await busy.request('tools/call', { name: 'fx__echo', arguments: {} });
    const sock: Socket = connect(world.socket);
    await new Promise<void>((r) => sock.once('connect', r));
    sock.pause(); // never read a byte
    sock.write(SESSION_PREFACE);
    sock.write(encode({ hello: { caller: 'sloth', pid: process.pid, clientName: 'sloth', previousSessionId: '' } }));
    sock.write(encode({ request: { id: 1, method: 'logging/setLevel', paramsJson: Buffer.from('{"level":"debug"}'), timeoutMs: 0 } }));
    // The server prints 300 lines of 7 KB per call: ~600 MB of log in all, from small requests.
    const line = 'x'.repeat(7000);
    for (let i = 0; i < 300; i++) await busy.request('tools/call', { name: 'fx__stderr', arguments: { line, repeat: 300 } });
    // A server's stderr is a socket, which Node writes asynchronously: a call can return while its lines
    // are still on their way, and a loaded core reads the flood's tail long after the last answer. A
    // marker line, echoed in the core's log only once everything before it was handled, ends the flood;
    // lines still arriving once the sloth reads would be live traffic, not what the core held for it.
    await busy.request('tools/call', { name: 'fx__stderr', arguments: { line: 'flood-over-marker' } });
    busy.close();
    await world.waitForLogLine('the core to have handled the whole flood', /flood-over-marker/, 120_000);
    // What the core held for the sloth is what it sends once the sloth reads (RSS is no sharp measure here:
    // processing ~600 MB of log text leaves 60–675 MB of not-yet-collected garbage, readers or not).
    // Now read everything the core kept for the sloth, up to the answer to a ping sent after the flood.
    const reader = new FrameReader();
    let received = 0;
    let answered = false;
    sock.on('data', (chunk: Buffer) => {
      if (!answered) received += chunk.length;
      for (const f of reader.push(chunk)) if (SessionServerMessage.decode(f).response?.id === 2) answered = true;
    });
    sock.write(encode({ request: { id: 2, method: 'ping', paramsJson: Buffer.from('{}'), timeoutMs: 0 } }));
    sock.resume();
    await waitFor('the sloth to get the answer to its ping', () => answered, 120_000);
    sock.destroy();
    // Unbounded, the sloth is sent every log line (~600 MB); bounded, the 8 MiB limit plus socket buffers.
    expect(received).toBeLessThan(64 * 1024 * 1024);
    // The core logs this before it reads the ping again; its log reaches us on another pipe.
    await world.waitForLogLine(
      'the core to log how many notifications it dropped',
      /session caught up; reading resumed.*"droppedNotifications":[1-9]/,
      120_000,
    );
  });
});

import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionClientMessage } from '../../internal/gen/mcpd/control/v1/control.js';
import { SESSION_PREFACE, frame } from '../../internal/infra/rpc/session-framing.js';
import { SessionClient } from '../../internal/infra/rpc/session-client.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

/** Resident memory of a live process, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

const encode = (m: Parameters<typeof SessionClientMessage.encode>[0]) => frame(SessionClientMessage.encode(m).finish());

describe('a Session client that stops reading cannot grow the core without bound (issue 14.4)', () => {
  let world: TestWorld;
  let corePid: number;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
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

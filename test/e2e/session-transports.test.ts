import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../../internal/contract/grpc/control-client.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { openGrpcSession } from '../../internal/contract/grpc/grpc-session.js';
import { TestWorld } from '../support/core-process.js';
import { echoServer, profile } from '../support/profiles.js';

const hello = (caller: string) => ({ caller, pid: process.pid, clientName: 'test', previousSessionId: '' });

/** Sends raw bytes to the control socket and resolves when the core closes the connection. */
function rawExchange(socketPath: string, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    const got: Buffer[] = [];
    s.on('data', (d: Buffer) => got.push(d));
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(got)));
    s.write(bytes);
  });
}

describe('the Session on both transports of the control socket', () => {
  let world: TestWorld;
  let client: ControlPlaneClient;
  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    client = world.control();
  });
  afterAll(async () => world.cleanup());

  for (const transport of ['framed', 'grpc'] as const) {
    it(`serves calls, progress and errors over the ${transport} Session`, async () => {
      const s =
        transport === 'framed'
          ? await SessionClient.connect(world.socket, hello(`t-${transport}`))
          : await openGrpcSession(client, hello(`t-${transport}`));
      try {
        expect(s.welcome.profile).toBe('default');
        const echoed = (await s.request('tools/call', { name: 'fx__echo', arguments: { text: transport } })) as {
          content: { text: string }[];
        };
        expect(echoed.content[0]?.text).toContain(transport);
        const progress: number[] = [];
        await s.request(
          'tools/call',
          { name: 'fx__slow', arguments: { ms: 50, steps: 3 } },
          { onProgress: (p) => progress.push(p.progress) },
        );
        expect(progress.length).toBeGreaterThan(0);
        await expect(s.request('tools/call', { name: 'fx__nope', arguments: {} })).rejects.toMatchObject({ reason: 'NOT_FOUND' });
        const status = await new ControlCalls(client).status();
        expect(status.callers.map((c) => c.caller)).toContain(`t-${transport}`);
      } finally {
        s.close();
      }
    });
  }

  it('drops a connection that speaks neither gRPC nor the Session preface, and keeps serving', async () => {
    const answer = await rawExchange(world.socket, Buffer.from('MCPD-BOGUS/9\nxxxxxxxx'));
    expect(answer.length).toBe(0);
    const s = await SessionClient.connect(world.socket, hello('after-junk'));
    try {
      expect(await s.request('ping', {})).toEqual({});
    } finally {
      s.close();
    }
  });

  it('ends a framed Session whose frame cannot be decoded, and keeps serving others', async () => {
    const other = await SessionClient.connect(world.socket, hello('bystander'));
    try {
      const junkFrame = Buffer.from([0, 0, 0, 3, 0xff, 0xff, 0xff]);
      await rawExchange(world.socket, Buffer.concat([Buffer.from('MCPD-SESSION/1\n'), junkFrame]));
      expect(await other.request('ping', {})).toEqual({});
    } finally {
      other.close();
    }
  });

  it('rejects connecting where no core listens, as UNAVAILABLE', async () => {
    await expect(SessionClient.connect(`${world.socket}.none`, hello('x'))).rejects.toMatchObject({
      reason: 'UNAVAILABLE',
      message: expect.stringContaining('ENOENT'),
    });
  });
});

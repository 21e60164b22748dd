import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { McpdError } from '../../internal/shared/errors.js';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { MuxConnection } from '../../internal/gateway/mux-session-client.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { FrameReader } from '../../internal/contract/session/session-framing.js';
import { MUX_PREFACE, MuxKind, muxFrame, parseMuxFrame } from '../../internal/contract/session/session-mux-framing.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { SessionClientMessage, SessionServerMessage, type SessionHello } from '../../internal/contract/gen/mcpd/control/v1/session.js';

const hello = (caller: string): SessionHello => ({ caller, pid: process.pid, clientName: 'mux-test', previousSessionId: '' });
const mapError = (e: Error) => new McpdError('UNAVAILABLE', e.message);

/** Writes raw bytes after the /2 preface and returns the core's CLOSE reason on channel 0 once it drops the connection. */
function dropReason(socket: string, bytes: Buffer[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    const reader = new FrameReader();
    let reason = '';
    c.on('data', (d: Buffer) => {
      for (const f of reader.push(d).map(parseMuxFrame)) if (f.channel === 0 && f.kind === MuxKind.close) reason = f.payload.toString();
    });
    c.on('error', reject);
    c.on('close', () => resolve(reason));
    c.on('connect', () => {
      c.write(MUX_PREFACE);
      for (const b of bytes) c.write(b);
    });
  });
}

describe('MCPD-SESSION/2: many Sessions on one connection to a real core', () => {
  let world: TestWorld;
  let control = createControlClient('/nonexistent');
  const sessionsOf = async (caller: string) => {
    const st = await callUnary<pb.GetRuntimeStatusRequest, pb.RuntimeStatus>((q, cb) => control.getRuntimeStatus(q, cb), {});
    return st.callers.filter((c) => c.caller === caller).reduce((n, c) => n + c.sessions, 0);
  };

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\nsessionChannelsPerConnection: 2\nsessionHelloTimeoutSeconds: 1\nsessionOutboundBytes: 65536\n',
    });
    await world.startCore();
    control = createControlClient(world.socket);
  });
  afterAll(async () => {
    control.close();
    await world.cleanup();
  });

  it('caps channels per connection with a reason naming the setting; closing one makes room', async () => {
    const conn = await MuxConnection.connect(world.socket);
    try {
      const a = await SessionClient.handshake(conn.open(), hello('capped'), 5000, mapError);
      const b = await SessionClient.handshake(conn.open(), hello('capped'), 5000, mapError);
      expect(a.welcome.sessionId).not.toBe(b.welcome.sessionId);
      await expect(SessionClient.handshake(conn.open(), hello('capped'), 5000, mapError)).rejects.toThrow(
        /this connection already carries 2 sessions \(runtime\.yaml sessionChannelsPerConnection\); close one or raise the cap/,
      );
      expect(await sessionsOf('capped')).toBe(2);
      const tools = (await a.request('tools/list', {})) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name)).toContain('fx__echo');

      a.close();
      await waitFor('the closed channel to release its session', async () => (await sessionsOf('capped')) === 1);
      const c = await SessionClient.handshake(conn.open(), hello('capped'), 5000, mapError);
      expect(await c.request('tools/call', { name: 'fx__echo', arguments: { via: 'channel 4' } })).toMatchObject({
        content: [{ type: 'text' }],
      });
      expect(await sessionsOf('capped')).toBe(2);
    } finally {
      conn.close();
    }
    await waitFor('a dropped connection to release every session it carried', async () => (await sessionsOf('capped')) === 0);
  });

  it('closes a channel that sends no hello in time, not its connection', async () => {
    const conn = await MuxConnection.connect(world.socket);
    try {
      const silent = conn.open();
      const why = new Promise<string>((resolve) => silent.on('error', (e: Error) => resolve(e.message)));
      const ok = await SessionClient.handshake(conn.open(), hello('timely'), 5000, mapError);
      expect(await why).toBe('no hello within 1000 ms');
      expect(conn.isClosed).toBe(false);
      expect(await ok.request('tools/list', {})).toHaveProperty('tools');
    } finally {
      conn.close();
    }
  });

  it('drops a connection that breaks the channel rules, saying which rule, and keeps serving others', async () => {
    const body = Buffer.from([0x0a, 0x00]);
    expect(await dropReason(world.socket, [muxFrame(5, MuxKind.message, body)])).toBe(
      'frame for channel 5, which was never opened (send OPEN first)',
    );
    expect(await dropReason(world.socket, [muxFrame(1, MuxKind.open), muxFrame(1, MuxKind.close), muxFrame(1, MuxKind.open)])).toBe(
      'OPEN of channel 1 after channel 1: channel ids must increase on a connection',
    );
    expect(
      await dropReason(world.socket, [muxFrame(1, MuxKind.open), muxFrame(1, MuxKind.close), muxFrame(1, MuxKind.message, body)]),
    ).toBe('frame for channel 1, which the client already closed');
    expect(await dropReason(world.socket, [muxFrame(0, MuxKind.open)])).toBe(
      'channel 0 is reserved for the connection; open channels from 1 up',
    );
    expect(await dropReason(world.socket, [Buffer.from([0, 0, 0, 2, 1, 2])])).toMatch(/^a 2-byte frame has no channel header/);
    expect(await dropReason(world.socket, [muxFrame(1, MuxKind.open), muxFrame(1, MuxKind.message, Buffer.from([0xff, 0xff]))])).toMatch(
      /^undecodable session message on channel 1: /,
    );
    // A connection that opens no channel is closed after the hello timeout.
    expect(await dropReason(world.socket, [])).toBe('no session channel open for 1000 ms');
    expect(await sessionsOf('nobody')).toBe(0);
    const conn = await MuxConnection.connect(world.socket);
    try {
      const s = await SessionClient.handshake(conn.open(), hello('after'), 5000, mapError);
      expect(await s.request('tools/list', {})).toHaveProperty('tools');
    } finally {
      conn.close();
    }
  });

  it('a connection that stops reading holds a bounded amount for its sessions, which carry on once it reads', async () => {
    const busy = await SessionClient.connect(world.socket, hello('busy'));
    await busy.request('tools/call', { name: 'fx__echo', arguments: {} });
    const sock = connect(world.socket);
    await new Promise<void>((r) => sock.once('connect', r));
    sock.pause(); // never read a byte, until the end
    const msg = (channel: number, m: Parameters<typeof SessionClientMessage.encode>[0]) =>
      muxFrame(channel, MuxKind.message, SessionClientMessage.encode(m).finish());
    const request = (id: number, method: string, params: object) => ({
      request: { id, method, paramsJson: Buffer.from(JSON.stringify(params)), timeoutMs: 0 },
    });
    sock.write(MUX_PREFACE);
    sock.write(muxFrame(1, MuxKind.open));
    sock.write(msg(1, { hello: hello('sloth') }));
    sock.write(msg(1, request(1, 'logging/setLevel', { level: 'debug' })));
    sock.write(muxFrame(2, MuxKind.open));
    sock.write(msg(2, { hello: hello('bystander') }));
    await waitFor('both sessions to be attached', async () => (await sessionsOf('sloth')) + (await sessionsOf('bystander')) === 2);
    // 50 calls × 100 lines of 7 KB of server stderr, logged to a session at debug level that never reads.
    const line = 'x'.repeat(7000);
    for (let i = 0; i < 50; i++) await busy.request('tools/call', { name: 'fx__stderr', arguments: { line, repeat: 100 } });
    await busy.request('ping', {});
    busy.close();
    const reader = new FrameReader();
    let received = 0;
    const answered = new Set<number>();
    sock.on('data', (chunk: Buffer) => {
      received += chunk.length;
      for (const f of reader.push(chunk).map(parseMuxFrame)) {
        const id = f.kind === MuxKind.message ? SessionServerMessage.decode(f.payload).response?.id : undefined;
        if (id === 2 || id === 3) answered.add(f.channel * 10 + id);
      }
    });
    sock.write(msg(1, request(2, 'ping', {})));
    sock.write(msg(2, request(3, 'ping', {})));
    sock.resume();
    await waitFor('both sessions to answer their ping', () => answered.has(12) && answered.has(23), 60_000);
    sock.destroy();
    // Unbounded, the sloth is sent ~15 MB of it (measured); bounded: 4 × 64 KiB for the connection plus socket buffers.
    expect(received).toBeLessThan(4 * 1024 * 1024);
    await world.waitForLogLine(
      'the core to log the dropped notifications',
      /session caught up; reading resumed.*"droppedNotifications":[1-9]/,
    );
    await waitFor(
      'the connection to release both sessions',
      async () => (await sessionsOf('sloth')) + (await sessionsOf('bystander')) === 0,
    );
  });
});

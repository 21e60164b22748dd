import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';

import { SESSION_PREFACE, frame } from '../../internal/contract/session/session-framing.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { coreWorld } from '../support/core-world.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { SessionClientMessage } from '../../internal/contract/gen/mcpd/control/v1/session.js';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Writes `bytes` to the control socket and resolves when the core closes the connection. */
function heldUntilClosed(socketPath: string, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    s.on('error', reject);
    s.on('data', () => {});
    s.on('close', () => resolve());
    s.write(bytes);
  });
}

describe('connections that stop half-way are closed', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(echoServer('fx')),
    'callers.yaml': 'callers: {}\n',
    'runtime.yaml': 'metricsAddress: ""\nsessionHelloTimeoutSeconds: 0.5\nsessionFrameStallSeconds: 0.5\n',
  });

  it('ends a Session that sends only the preface', async () => {
    await heldUntilClosed(world.socket, SESSION_PREFACE);
    // The log comes by another channel (the core's stderr) than the close: it may arrive after it.
    await waitFor('the log line', () => world.coreLog.join('').includes('session ended: no hello in time'));
  });

  it('ends a Session that stops in the middle of a frame, and keeps serving others', async () => {
    const hello = frame(SessionClientMessage.encode({ hello: { caller: 'half', pid: 0, clientName: '', previousSessionId: '' } }).finish());
    const partial = Buffer.from([0, 0, 0x10, 0, 1, 2, 3]); // announces 4096 bytes, sends 3
    await heldUntilClosed(world.socket, Buffer.concat([SESSION_PREFACE, hello, partial]));
    const s = await SessionClient.connect(world.socket, { caller: 'ok', pid: process.pid, clientName: 't', previousSessionId: '' });
    try {
      expect(await s.request('ping', {})).toEqual({});
    } finally {
      s.close();
    }
  });
  it('closes HTTP/2 connections with garbage after a valid preface within the stall timeout, and answers gRPC meanwhile', async () => {
    const settings = Buffer.from([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]);
    // Each of these was held open by grpc-js (minutes) once the preface had been read.
    const cases = [
      Buffer.concat([HTTP2_PREFACE, settings, randomBytes(64)]), // random bytes after SETTINGS
      Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0])]), // half a frame header
      Buffer.concat([HTTP2_PREFACE, settings, Buffer.from([0, 0x10, 0, 1, 4, 0, 0, 0, 1, 1, 2, 3])]), // HEADERS announcing 4 KiB, 3 sent
      Buffer.concat([HTTP2_PREFACE, settings, Buffer.from([0, 0, 4, 0xee, 0, 0, 0, 0, 0, 1, 2, 3, 4])]), // a frame type no request needs
    ];
    const closing = cases.map((bytes) => heldUntilClosed(world.socket, bytes));
    const ctl = createControlClient(world.socket);
    try {
      const st = await new ControlCalls(ctl).status();
      expect(st.configIssues).toEqual([]);
    } finally {
      ctl.close();
    }
    await Promise.all(closing);
  });

  it("sends the server's SETTINGS before the first request, as clients that wait for it (grpc-go) need", async () => {
    const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    const first = await new Promise<Buffer>((resolve, reject) => {
      const s = connect(world.socket);
      s.on('error', reject);
      s.once('data', (d: Buffer) => {
        resolve(d);
        s.destroy();
      });
      s.write(Buffer.concat([HTTP2_PREFACE, settings]));
    });
    expect(first.readUInt8(3)).toBe(4); // SETTINGS
    expect(first.readUInt8(4) & 1).toBe(0); // not an ACK
  });
});

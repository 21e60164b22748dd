import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SessionClientMessage } from '../../internal/gen/mcpd/control/v1/control.js';
import { SESSION_PREFACE, frame } from '../../internal/infra/rpc/session-framing.js';
import { SessionClient } from '../../internal/infra/rpc/session-client.js';
import { coreWorld } from '../support/core-world.js';
import { echoServer, profile } from '../support/profiles.js';

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

describe('connections that stop half-way are closed (issue 14.8)', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(echoServer('fx')),
    'callers.yaml': 'callers: {}\n',
    'runtime.yaml': 'metricsAddress: ""\nsessionHelloTimeoutSeconds: 0.5\nsessionFrameStallSeconds: 0.5\n',
  });

  it('ends a Session that sends only the preface', async () => {
    await heldUntilClosed(world.socket, SESSION_PREFACE);
    expect(world.coreLog.join('')).toContain('session ended: no hello in time');
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
});

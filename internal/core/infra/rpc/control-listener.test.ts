import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenControlSocket, type ControlListener } from './control-listener.js';
import { must } from '../../../shared/must.js';
import { SERVER_SETTINGS } from './http2-first-request.js';

/** An HTTP/2 frame: type, flags, stream, payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const SETTINGS = frame(4, 0, 0, Buffer.from([0, 3, 0, 0, 0, 100]));
const SETTINGS_ACK = frame(4, 1, 0, Buffer.alloc(0));
const WINDOW = frame(8, 0, 0, Buffer.from([0, 1, 0, 0]));
const HEADERS = frame(1, 0x4, 1, Buffer.from('opaque header block'));
const DATA = frame(0, 0x1, 1, Buffer.from('body'));

/** What the listener handed over, and the bytes the chosen protocol then reads. */
interface Handed {
  kind: 'grpc' | 'session' | 'mux';
  bytes: Promise<Buffer>;
}

function readAll(socket: Socket, first: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const got = [first];
    socket.on('data', (d: Buffer) => got.push(d));
    socket.resume();
    socket.on('end', () => resolve(Buffer.concat(got)));
  });
}

describe('one control socket for gRPC and framed Sessions', () => {
  let dir: string;
  let listener: ControlListener | undefined;
  afterEach(async () => {
    await listener?.close(100);
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(firstBytesTimeoutMs?: number, frameStallMs?: number) {
    dir = mkdtempSync(join(tmpdir(), 'mcpd-listener-'));
    const path = join(dir, 'control.sock');
    const handed: Handed[] = [];
    listener = await listenControlSocket(
      path,
      {
        grpc: (s) => void handed.push({ kind: 'grpc', bytes: readAll(s, Buffer.alloc(0)) }),
        session: (s, rest) => void handed.push({ kind: 'session', bytes: readAll(s, rest) }),
        mux: (s, rest) => void handed.push({ kind: 'mux', bytes: readAll(s, rest) }),
      },
      { firstBytesTimeoutMs, frameStallMs },
    );
    return { path, handed };
  }

  /** Writes chunks one at a time, then ends; resolves when the listener closes the connection. */
  function send(path: string, chunks: (string | Buffer)[], onData: (d: Buffer) => void = () => {}): Promise<void> {
    return new Promise((resolve) => {
      const c = connect(path);
      c.on('error', () => {});
      c.on('data', onData);
      c.on('close', () => resolve());
      c.on('connect', async () => {
        for (const chunk of chunks) {
          c.write(chunk);
          await new Promise((r) => setTimeout(r, 5));
        }
        c.end();
      });
    });
  }

  it('hands HTTP/2 to gRPC at its first request, with every byte but the ACK of our SETTINGS', async () => {
    const { path, handed } = await start();
    const got: Buffer[] = [];
    await send(path, [PREFACE, SETTINGS, WINDOW, HEADERS, SETTINGS_ACK, DATA], (d) => got.push(d));
    expect(Buffer.concat(got)).toEqual(SERVER_SETTINGS);
    expect(handed.map((h) => h.kind)).toEqual(['grpc']);
    expect(await must(handed[0], 'the handed connection').bytes).toEqual(Buffer.concat([PREFACE, SETTINGS, WINDOW, HEADERS, DATA]));
  });

  it('closes HTTP/2 whose first frame is not SETTINGS, or that sends a frame no first request has', async () => {
    const { path, handed } = await start();
    await send(path, [PREFACE, Buffer.from('garbage after a valid preface')]);
    await send(path, [PREFACE, SETTINGS, frame(0xee, 0, 0, Buffer.alloc(4))]);
    await send(path, [PREFACE, SETTINGS, frame(0, 0, 1, Buffer.alloc(4))]);
    await send(path, [PREFACE, SETTINGS, Buffer.from([0xff, 0xff, 0xff, 1, 4, 0, 0, 0, 1])]);
    expect(handed).toEqual([]);
  });

  it('closes HTTP/2 that stops in the middle of a frame after the stall timeout', async () => {
    const { path, handed } = await start(60_000, 50);
    await new Promise<void>((resolve) => {
      const c = connect(path);
      c.on('error', () => {});
      c.on('data', () => {});
      c.on('close', () => resolve());
      c.write(Buffer.concat([PREFACE, SETTINGS, Buffer.from([0, 0x10, 0, 1, 4, 0, 0, 0, 1, 1, 2, 3])]));
    });
    expect(handed).toEqual([]);
  });

  it('recognises the Session preface even when it arrives in pieces', async () => {
    const { path, handed } = await start();
    await send(path, ['MCP', 'D-SESS', 'ION/1\nabc', 'def']);
    expect(handed.map((h) => h.kind)).toEqual(['session']);
    expect((await must(handed[0], 'the handed connection').bytes).toString()).toBe('abcdef');
  });

  it('tells the multiplexed Session preface from the single one, even in pieces', async () => {
    const { path, handed } = await start();
    await send(path, ['MCPD-SESSION/', '2', '\nxyz']);
    expect(handed.map((h) => h.kind)).toEqual(['mux']);
    expect((await must(handed[0], 'the handed connection').bytes).toString()).toBe('xyz');
  });

  it('closes a connection that speaks neither', async () => {
    const { path, handed } = await start();
    await send(path, ['MCPD-SESSION/3\n']);
    expect(handed).toEqual([]);
  });

  it('closes a connection that says nothing in time', async () => {
    const { path, handed } = await start(50);
    await new Promise<void>((resolve) => {
      const c = connect(path);
      c.on('error', () => {});
      c.on('close', () => resolve());
    });
    expect(handed).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenControlSocket, type ControlListener } from './control-listener.js';
import { must } from '../../domain/must.js';

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

  async function start(firstBytesTimeoutMs?: number) {
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
      { firstBytesTimeoutMs },
    );
    return { path, handed };
  }

  /** Writes chunks one at a time, then ends; resolves when the listener closes the connection. */
  function send(path: string, chunks: string[]): Promise<void> {
    return new Promise((resolve) => {
      const c = connect(path);
      c.on('error', () => {});
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

  it('hands HTTP/2 to gRPC with every byte it read still there', async () => {
    const { path, handed } = await start();
    await send(path, ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'frames']);
    expect(handed.map((h) => h.kind)).toEqual(['grpc']);
    expect((await must(handed[0], 'the handed connection').bytes).toString()).toBe('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nframes');
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

import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FrameReader } from '../../internal/contract/session/session-framing.js';
import { MuxKind, MuxProtocolError, muxFrame, parseMuxFrame } from '../../internal/contract/session/session-mux-framing.js';
import { MuxServerConnection } from '../../internal/core/infra/rpc/mux-session-server.js';
import type { SessionServerStream } from '../../internal/core/infra/rpc/session-server.js';
import { FUZZ, split } from './fuzz-support.js';
import { waitFor } from '../support/procs.js';
import { SessionClientMessage, SessionServerMessage } from '../../internal/contract/gen/mcpd/control/v1/session.js';

const message = fc.oneof(
  fc.record({ caller: fc.string({ maxLength: 8 }) }).map((h) => ({ hello: { ...h, pid: 1, clientName: '', previousSessionId: '' } })),
  fc
    .record({ id: fc.nat({ max: 1e6 }), method: fc.string({ maxLength: 12 }) })
    .map((r) => ({ request: { ...r, paramsJson: Buffer.from('{}'), timeoutMs: 0 } })),
  fc.record({ id: fc.nat({ max: 1e6 }), reason: fc.string({ maxLength: 8 }) }).map((c) => ({ cancel: c })),
);
const encoded = message.map((m) => SessionClientMessage.encode(SessionClientMessage.fromPartial(m)).finish());

describe('MCPD-SESSION/2 framing fuzzing', () => {
  it('any split of /2 frames yields exactly those channels, kinds and messages, in order', () => {
    const frameArb = fc.record({
      channel: fc.integer({ min: 0, max: 0xffff_ffff }),
      kind: fc.constantFrom(MuxKind.message, MuxKind.open, MuxKind.close),
      payload: encoded,
    });
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 16 }), (frames, cuts) => {
        const bytes = Buffer.concat(frames.map((f) => muxFrame(f.channel, f.kind, f.payload)));
        const reader = new FrameReader();
        const got = split(bytes, cuts)
          .flatMap((c) => reader.push(c))
          .map(parseMuxFrame);
        expect(got.map((f) => [f.channel, f.kind, Buffer.from(f.payload).toString('hex')])).toEqual(
          frames.map((f) => [f.channel, f.kind, Buffer.from(f.payload).toString('hex')]),
        );
      }),
      FUZZ,
    );
  });

  it('a garbage frame body parses or fails with a MuxProtocolError that says what is wrong', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (body) => {
        try {
          const f = parseMuxFrame(Buffer.from(body));
          expect([MuxKind.message, MuxKind.open, MuxKind.close]).toContain(f.kind);
        } catch (e) {
          expect(e).toBeInstanceOf(MuxProtocolError);
          expect((e as Error).message).toMatch(/has no channel header|has unknown kind \d+ \(0 message, 1 open, 2 close\)/);
        }
      }),
      FUZZ,
    );
  });
});

/** What the core may say on channel 0 before it drops a connection: each names the rule that was broken. */
const KNOWN_REASONS = [
  /^channel 0 is reserved for the connection; open channels from 1 up$/,
  /^frame for channel \d+, which was never opened \(send OPEN first\)$/,
  /^frame for channel \d+, which the client already closed$/,
  /^OPEN of channel \d+ after channel \d+: channel ids must increase on a connection$/,
  /^undecodable session message on channel \d+: .+/,
  /^a \d+-byte frame has no channel header/,
  /^frame on channel \d+ has unknown kind \d+/,
  /^session frame of \d+ bytes exceeds the \d+-byte limit$/,
  /^\d+ channels open or closed without the client's CLOSE; answer every CLOSE$/,
];

describe('a MCPD-SESSION/2 connection under hostile input', () => {
  let dir: string;
  let server: Server;
  let path: string;
  /** Channels served on the connection of the current run. */
  let served: { stream: SessionServerStream; closed: boolean }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpd-mux-fuzz-'));
    path = join(dir, 'mux.sock');
    server = createServer((socket) => {
      const conn = new MuxServerConnection(socket, {
        // Each channel answers every message with a welcome, so frames flow both ways.
        serve: (stream) => {
          const rec = { stream, closed: false };
          served.push(rec);
          stream.on('data', () => void stream.write({ welcome: { sessionId: 's', profile: 'p', coreId: 'c' } }));
          stream.on('close', () => (rec.closed = true));
        },
        maxChannels: 3,
        maxOutboundBytes: 1 << 20,
        idleMs: 60_000,
      });
      conn.receive(Buffer.alloc(0));
    });
    await new Promise<void>((r) => server.listen(path, r));
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends `chunks`, ends, and returns the frames the core sent back once it closed the connection. */
  function exchange(chunks: Buffer[]): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      const c = connect(path);
      const reader = new FrameReader();
      const got: Buffer[] = [];
      c.on('data', (d: Buffer) => got.push(...reader.push(d)));
      // The core may drop the connection while we still write: that is one of the outcomes under test.
      c.on('error', () => {});
      c.on('close', () => resolve(got));
      c.on('connect', () => {
        for (const chunk of chunks) c.write(chunk);
        c.end();
      });
      c.setTimeout(10_000, () => reject(new Error('the core neither answered nor closed within 10 s')));
    });
  }

  const op = fc.oneof(
    fc.record({ channel: fc.integer({ min: 0, max: 6 }), kind: fc.constant(MuxKind.open) }),
    fc.record({ channel: fc.integer({ min: 0, max: 6 }), kind: fc.constant(MuxKind.close) }),
    fc.record({ channel: fc.integer({ min: 0, max: 6 }), kind: fc.constant(MuxKind.message), payload: encoded }),
    fc.record({ garbage: fc.uint8Array({ minLength: 1, maxLength: 12 }) }),
  );

  it('never crashes; every session it served ends with the connection; a drop says which rule was broken', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 8 }), async (ops, cuts) => {
        served = [];
        const bytes = Buffer.concat(
          ops.map((o) => ('garbage' in o ? Buffer.from(o.garbage) : muxFrame(o.channel, o.kind, 'payload' in o ? o.payload : undefined))),
        );
        const frames = (await exchange(split(bytes, cuts))).map(parseMuxFrame);
        for (const f of frames) {
          if (f.kind === MuxKind.close && f.channel === 0) {
            const reason = f.payload.toString('utf8');
            expect(
              KNOWN_REASONS.some((r) => r.test(reason)),
              reason,
            ).toBe(true);
          } else {
            expect(f.channel).toBeGreaterThan(0);
          }
          if (f.kind === MuxKind.message) expect(SessionServerMessage.decode(f.payload).welcome?.sessionId).toBe('s');
        }
        // No session outlives its connection (the core sees the close a moment after the client does).
        await waitFor('every served channel to close', () => served.every((s) => s.closed), 10_000, 1);
      }),
      { ...FUZZ, numRuns: Math.min(FUZZ.numRuns ?? 1000, 1000) },
    );
  });
});

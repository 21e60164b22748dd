import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type CursorState } from '../../internal/core/domain/cursor.js';
import { McpdError } from '../../internal/shared/errors.js';
import { jsonRpcLines, parseJsonRpc } from '../../internal/shared/jsonrpc/line-reader.js';
import type { LineSplitter } from '../../internal/shared/line-splitter.js';
import { frame, FrameReader } from '../../internal/contract/session/session-framing.js';

import { anyCodeUnits, FUZZ, mutations, split } from './fuzz-support.js';
import { SessionClientMessage } from '../../internal/contract/gen/mcpd/control/v1/session.js';

const cursorState: fc.Arbitrary<CursorState> = fc.record({
  etag: fc.string({ unit: 'grapheme', maxLength: 64 }),
  offset: fc.nat(),
  kind: fc.constantFrom('tools', 'prompts', 'resources', 'resourceTemplates'),
});

describe('cursor fuzzing', () => {
  it('decode ∘ encode is the identity', () => {
    fc.assert(
      fc.property(cursorState, (s) => {
        expect(decodeCursor(encodeCursor(s))).toEqual(s);
      }),
      FUZZ,
    );
  });

  it('decoding garbage or an edited cursor fails only with INVALID_ARGUMENT that says what to do', () => {
    const input = fc.oneof(anyCodeUnits(200), mutations(cursorState.map(encodeCursor)), fc.base64String({ maxLength: 120 }));
    fc.assert(
      fc.property(input, (c) => {
        try {
          const s = decodeCursor(c);
          // What decodes carries a matching checksum, so it is a state we minted (base64url decoding
          // ignores trailing bits, so the text itself may differ from ours).
          expect(decodeCursor(encodeCursor(s))).toEqual(s);
        } catch (e) {
          expect(e).toBeInstanceOf(McpdError);
          expect((e as McpdError).reason).toBe('INVALID_ARGUMENT');
          expect((e as Error).message).toMatch(/^invalid cursor: .+; pass back the nextCursor of a previous page unchanged/);
        }
      }),
      FUZZ,
    );
  });
});

const jsonRpc = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.string({ maxLength: 20 }), params: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), result: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.string({ maxLength: 20 }) }),
);

/** The next message of a JSON-RPC line stream, or null. */
const readMessage = (r: LineSplitter) => {
  const line = r.next();
  return line === null ? null : parseJsonRpc(line);
};

describe('JSON-RPC line reader fuzzing', () => {
  it('any split of a stream of messages yields exactly those messages, in order', () => {
    fc.assert(
      fc.property(fc.array(jsonRpc, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (msgs, cuts, crlf) => {
        const bytes = Buffer.from(msgs.map((m) => JSON.stringify(m) + (crlf ? '\r\n' : '\n')).join(''), 'utf8');
        const reader = jsonRpcLines();
        const got: unknown[] = [];
        for (const chunk of split(bytes, cuts)) {
          reader.push(chunk);
          for (let m = readMessage(reader); m !== null; m = readMessage(reader)) got.push(m);
        }
        expect(got).toEqual(msgs.map((m) => JSON.parse(JSON.stringify(m))));
      }),
      FUZZ,
    );
  });

  it('garbage lines fail one at a time with a plain Error, and the messages around them still come through', () => {
    const line = fc.oneof(
      jsonRpc.map((m) => ({ ok: true, text: JSON.stringify(m) })),
      fc
        .oneof(anyCodeUnits(30), mutations(jsonRpc.map((m) => JSON.stringify(m))))
        .map((t) => ({ ok: false, text: t.replace(/[\r\n]/g, '') })),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l.text}\n`).join(''), 'utf8');
        const reader = jsonRpcLines();
        let good = 0;
        for (const chunk of split(bytes, cuts)) {
          reader.push(chunk);
          for (;;) {
            let m: unknown;
            try {
              m = readMessage(reader);
            } catch (e) {
              expect(e).toBeInstanceOf(Error);
              expect((e as Error).message.length).toBeGreaterThan(0);
              continue;
            }
            if (m === null) break;
            good++;
          }
        }
        // Every valid line came through (a mutated one may happen to be valid JSON-RPC too).
        expect(good).toBeGreaterThanOrEqual(lines.filter((l) => l.ok).length);
        expect(good).toBeLessThanOrEqual(lines.length);
      }),
      FUZZ,
    );
  });
});

const sessionMessage = fc.oneof(
  fc
    .record({ caller: fc.string({ maxLength: 10 }), pid: fc.nat({ max: 1e6 }) })
    .map((h) => ({ hello: { ...h, clientName: '', previousSessionId: '' } })),
  fc
    .record({ id: fc.nat({ max: 1e9 }), method: fc.string({ maxLength: 16 }), params: fc.uint8Array({ maxLength: 64 }) })
    .map((r) => ({ request: { id: r.id, method: r.method, paramsJson: Buffer.from(r.params), timeoutMs: 0 } })),
  fc.record({ id: fc.nat({ max: 1e9 }), reason: fc.string({ maxLength: 16 }) }).map((c) => ({ cancel: c })),
);

describe('Session framing fuzzing', () => {
  it('any split of framed messages yields exactly those messages, in order', () => {
    fc.assert(
      fc.property(fc.array(sessionMessage, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 16 }), (msgs, cuts) => {
        const encoded = msgs.map((m) => SessionClientMessage.encode(SessionClientMessage.fromPartial(m)).finish());
        const bytes = Buffer.concat(encoded.map((e) => frame(e)));
        const reader = new FrameReader();
        const frames = split(bytes, cuts).flatMap((c) => reader.push(c));
        expect(frames.map((f) => Buffer.from(f))).toEqual(encoded.map((e) => Buffer.from(e)));
        expect(frames.map((f) => SessionClientMessage.decode(f))).toEqual(encoded.map((e) => SessionClientMessage.decode(e)));
      }),
      FUZZ,
    );
  });

  it('garbage bytes either wait for more, yield frames, or fail with a clear size error; never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 }), (garbage, cuts) => {
        const reader = new FrameReader();
        let total = 0;
        try {
          for (const chunk of split(Buffer.from(garbage), cuts)) {
            for (const f of reader.push(chunk)) {
              total += 4 + f.length;
              // A frame of garbage decodes as a message or fails as protobuf does: the stream then reports it.
              try {
                SessionClientMessage.decode(f);
              } catch (e) {
                expect(e).toBeInstanceOf(Error);
              }
            }
          }
        } catch (e) {
          expect((e as Error).message).toMatch(/^session frame of \d+ bytes exceeds the \d+-byte limit$/);
          return;
        }
        expect(total).toBeLessThanOrEqual(garbage.length);
      }),
      FUZZ,
    );
  });
});

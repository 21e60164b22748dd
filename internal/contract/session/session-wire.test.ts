import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { frame } from './session-framing.js';
import {
  COPY_RESULT_BELOW,
  decodeClientMessage,
  decodeServerMessage,
  encodeServerMessage,
  requestFrame,
  responseFrame,
  responseFrameParts,
} from './session-wire.js';
import { SessionClientMessage, SessionServerMessage } from '../gen/mcpd/control/v1/session.js';

const id = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constant('x'.repeat(70_000)));

describe('session wire frames', () => {
  it('a response frame is byte for byte the generic encoding of the same message', () => {
    fc.assert(
      fc.property(id, text, (i, json) => {
        const generic = frame(SessionServerMessage.encode({ response: { id: i, resultJson: Buffer.from(json, 'utf8') } }).finish());
        expect(responseFrame(i, Buffer.from(json, 'utf8')).equals(generic)).toBe(true);
      }),
    );
  });

  it('a request frame is byte for byte the generic encoding of the same message', () => {
    fc.assert(
      fc.property(id, fc.string(), text, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (i, method, params, timeoutMs) => {
        const generic = frame(
          SessionClientMessage.encode({ request: { id: i, method, paramsJson: Buffer.from(params, 'utf8'), timeoutMs } }).finish(),
        );
        expect(requestFrame(i, method, params, timeoutMs).equals(generic)).toBe(true);
      }),
    );
  });

  it('decodes back to the fields it was given', () => {
    const m = SessionClientMessage.decode(requestFrame(2 ** 40 + 3, 'tools/call', '{"name":"é"}', 1500).subarray(4));
    expect(m.request).toEqual({ id: 2 ** 40 + 3, method: 'tools/call', paramsJson: Buffer.from('{"name":"é"}'), timeoutMs: 1500 });
    const r = SessionServerMessage.decode(responseFrame(7, Buffer.from('{"content":[]}')).subarray(4));
    expect(r.response?.id).toBe(7);
    expect(Buffer.from(r.response?.resultJson ?? []).toString()).toBe('{"content":[]}');
  });

  it('a large result is written after its header as its own buffer, uncopied; the parts make the same frame', () => {
    const result = Buffer.from(`{"content":[{"type":"text","text":"${'x'.repeat(COPY_RESULT_BELOW)}"}]}`);
    const parts = responseFrameParts(9, result);
    expect(Array.isArray(parts)).toBe(true);
    const [head, body] = parts as Buffer[];
    expect(body).toBe(result);
    expect(Buffer.concat([head as Buffer, result]).equals(responseFrame(9, result))).toBe(true);
    expect(Buffer.isBuffer(responseFrameParts(9, Buffer.from('{}')))).toBe(true);
  });

  it('encodes any server message as the generated encoder does, and decodes a result as a view of the frame', () => {
    fc.assert(
      fc.property(id, text, (i, json) => {
        const msg = { response: { id: i, resultJson: Buffer.from(json, 'utf8') } };
        const bytes = encodeServerMessage(msg);
        expect(Buffer.from(SessionServerMessage.encode(msg).finish()).equals(bytes)).toBe(true);
        const back = decodeServerMessage(bytes);
        expect(back.response?.id).toBe(i);
        expect(back.response?.resultJson?.equals(msg.response.resultJson)).toBe(true);
        // A view: the result's bytes are the frame's own memory, not a copy.
        expect(back.response?.resultJson?.buffer).toBe(bytes.buffer);
      }),
    );
    const error = { response: { id: 3, error: { reason: 'NOT_FOUND', message: 'm', specCode: -32602, dataJson: Buffer.alloc(0) } } };
    expect(encodeServerMessage(error).equals(Buffer.from(SessionServerMessage.encode(error).finish()))).toBe(true);
    expect(decodeServerMessage(encodeServerMessage(error)).response?.error?.message).toBe('m');
    const progress = { progress: { id: 4, progress: { progress: 1, total: 2, hasTotal: true, message: '' } } };
    expect(decodeServerMessage(encodeServerMessage(progress)).progress?.id).toBe(4);
  });

  /** What a decoder gives, or the error it throws: the fast path and the generated code must agree on both. */
  const outcome = (decode: () => SessionClientMessage) => {
    try {
      return { ok: decode() };
    } catch (e) {
      return { threw: (e as Error).message };
    }
  };

  it('decodes every request frame as the generated decoder does, its params a view of the frame', () => {
    fc.assert(
      fc.property(id, fc.string(), text, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (i, method, params, timeoutMs) => {
        const bytes = requestFrame(i, method, params, timeoutMs).subarray(4);
        const fast = decodeClientMessage(bytes);
        const generic = SessionClientMessage.decode(bytes);
        // Buffers compared by equals(): a deep comparison of a 70 KB one element by element takes seconds.
        expect(fast.request?.paramsJson.equals(generic.request?.paramsJson ?? Buffer.alloc(1))).toBe(true);
        expect({ ...fast, request: { ...fast.request, paramsJson: null } }).toEqual({
          ...generic,
          request: { ...generic.request, paramsJson: null },
        });
        if (params.length > 0 && Buffer.byteLength(method) === method.length) expect(fast.request?.paramsJson.buffer).toBe(bytes.buffer);
      }),
    );
  });

  it('agrees with the generated decoder on any other bytes and messages: other layouts, negative timeouts, huge ids, bad UTF-8', () => {
    const messages = fc.oneof(
      fc
        .record({ id, method: fc.string(), paramsJson: fc.uint8Array().map((a) => Buffer.from(a)), timeoutMs: fc.integer() })
        .map((request) => ({ request })),
      fc.record({ id, reason: fc.string() }).map((cancel) => ({ cancel })),
      fc.record({ caller: fc.string(), clientName: fc.string() }).map((h) => ({ hello: { ...h, pid: 1, previousSessionId: '' } })),
    );
    fc.assert(
      fc.property(messages, (m) => {
        const bytes = SessionClientMessage.encode(m as SessionClientMessage).finish();
        expect(outcome(() => decodeClientMessage(bytes))).toEqual(outcome(() => SessionClientMessage.decode(bytes)));
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
        const bytes = Uint8Array.from([0x12, raw.length, ...raw]);
        expect(outcome(() => decodeClientMessage(bytes))).toEqual(outcome(() => SessionClientMessage.decode(bytes)));
        expect(outcome(() => decodeClientMessage(raw))).toEqual(outcome(() => SessionClientMessage.decode(raw)));
      }),
      { numRuns: 2000 },
    );
    // Beyond 2^53 an id is refused by the generated decoder's check: the fast path leaves it to that.
    const huge = Uint8Array.from([0x12, 10, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]); // id 2^60
    expect(outcome(() => decodeClientMessage(huge))).toEqual(outcome(() => SessionClientMessage.decode(huge)));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { frame } from './session-framing.js';
import { requestFrame, responseFrame } from './session-wire.js';
import { SessionClientMessage, SessionServerMessage } from '../gen/mcpd/control/v1/session.js';

const id = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constant('x'.repeat(70_000)));

describe('session wire frames', () => {
  it('a response frame is byte for byte the generic encoding of the same message', () => {
    fc.assert(
      fc.property(id, text, (i, json) => {
        const generic = frame(SessionServerMessage.encode({ response: { id: i, resultJson: Buffer.from(json, 'utf8') } }).finish());
        expect(responseFrame(i, json).equals(generic)).toBe(true);
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
    const r = SessionServerMessage.decode(responseFrame(7, '{"content":[]}').subarray(4));
    expect(r.response?.id).toBe(7);
    expect(Buffer.from(r.response?.resultJson ?? []).toString()).toBe('{"content":[]}');
  });
});

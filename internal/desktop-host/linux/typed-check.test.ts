import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import type { Clock } from '../clock.js';
import { arrivedWhole, awaitTyped, expectedAfter } from './typed-check.js';

/** A clock whose sleeps pass at once: the field's reads decide, not time. */
function fakeClock(): Clock {
  let t = 0;
  return { now: () => t, sleep: async (ms) => void (t += ms) };
}
const reads = (...texts: (string | undefined)[]) => {
  let i = 0;
  return async () => texts[Math.min(i++, texts.length - 1)];
};

describe('typed text read back', () => {
  it('expects the text at the caret, or alone after clearBefore (offsets in code points)', () => {
    expect(expectedAfter({ text: '😀ab', caret: 1 }, 'X', false)).toBe('😀Xab');
    expect(expectedAfter({ text: 'ab', caret: -1 }, 'X', false)).toBe('abX');
    expect(expectedAfter({ text: 'ab', caret: 0 }, 'X', true)).toBe('X');
  });

  it('takes keys of an earlier stopped typing that arrive first as not this text’s fault', () => {
    const before = { text: 'ww', caret: 2 };
    expect(arrivedWhole(before, 'wwwwZ', 'Z', false)).toBe(true);
    expect(arrivedWhole({ text: 'banana', caret: 6 }, 'banana', 'a', false)).toBe(false);
    expect(arrivedWhole({ text: 'banana', caret: 6 }, 'bananaa', 'a', false)).toBe(true);
    expect(arrivedWhole(before, 'grßße', 'grüße', true)).toBe(false);
  });

  it('waits while keys still arrive, and verifies once the field shows the text', async () => {
    const r = await awaitTyped(reads('a', 'ab', 'abc'), { text: '', caret: 0 }, 'abc', false, fakeClock());
    expect(r).toEqual({ verified: true });
  });

  it('a field that stays different is an error naming positions, never the text', async () => {
    const e = await awaitTyped(reads('gr', 'grßße'), { text: '', caret: 0 }, 'grüße', false, fakeClock()).catch((x: BridgeError) => x);
    expect(e).toBeInstanceOf(BridgeError);
    expect((e as BridgeError).code).toBe('DESKTOP_INTERNAL_ERROR');
    expect((e as BridgeError).details).toMatchObject({ reason: 'typed-text-differs', differsAt: 2, expectedChars: 5, fieldChars: 5 });
    expect((e as BridgeError).message).not.toMatch(/gr/);
  });

  it('a field that cannot be read back leaves the text unverified, saying so', async () => {
    expect(await awaitTyped(reads(undefined), { text: '', caret: 0 }, 'x', false, fakeClock())).toMatchObject({ verified: false });
  });

  it('the request’s abort ends the wait', async () => {
    const ac = new AbortController();
    ac.abort(new BridgeError('DESKTOP_ABORTED', 'stop'));
    const clock: Clock = { now: () => 0, sleep: async (_ms, signal) => Promise.reject(signal.reason) };
    await expect(awaitTyped(reads('a'), { text: '', caret: 0 }, 'b', false, clock, ac.signal)).rejects.toMatchObject({
      code: 'DESKTOP_ABORTED',
    });
  });
});

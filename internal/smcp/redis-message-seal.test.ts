import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SKEW_MS, RedisMessageSeal } from './redis-message-seal.js';

const CH = 'smcp:link:node-2';
const SECRET = 'node-secret-0123456789abcdef0123456789';
const BAD_SEAL = { ok: false, why: expect.stringMatching(/^bad seal/) as string };

describe('RedisMessageSeal: the AEAD seal on messages between nodes', () => {
  it('opens what it sealed once, on the channel it was sealed for; the payload is not readable on the wire', () => {
    const seal = new RedisMessageSeal(SECRET);
    const sealed = seal.seal(CH, '{"kind":"call","args":"hunter2-marker"}');
    expect(sealed.toString('latin1')).not.toContain('hunter2-marker');
    expect(sealed.toString('latin1')).not.toContain('kind');
    expect(seal.open('smcp:link:node-1', sealed)).toMatchObject(BAD_SEAL);
    const r = seal.open(CH, sealed);
    expect(r.ok && r.payload.toString()).toBe('{"kind":"call","args":"hunter2-marker"}');
    expect(seal.open(CH, sealed)).toEqual({ ok: false, why: 'replayed' });
  });

  it('refuses a message sealed under another secret (the client API key, say), and one outside the time window', () => {
    let now = 1_000_000;
    const seal = new RedisMessageSeal(SECRET, () => now);
    expect(seal.open(CH, new RedisMessageSeal('the-client-api-key').seal(CH, 'x'))).toMatchObject(BAD_SEAL);
    const old = seal.seal(CH, 'x');
    now += MAX_SKEW_MS + 1;
    expect(seal.open(CH, old)).toMatchObject({ ok: false, why: expect.stringMatching(/^stale/) as string });
  });

  it('fuzz: no flipped byte, truncation, extension or random buffer is accepted, and none throws', () => {
    const seal = new RedisMessageSeal(SECRET);
    const sealed = seal.seal(CH, Buffer.from(JSON.stringify({ kind: 'call', event: 'client:tool_call', payload: { a: 1 } })));
    for (let i = 0; i < sealed.length; i++) {
      for (const bit of [1, 0x80]) {
        const m = Buffer.from(sealed);
        m[i]! ^= bit;
        expect(seal.open(CH, m).ok).toBe(false);
      }
    }
    for (let n = 0; n < sealed.length; n++) expect(seal.open(CH, sealed.subarray(0, n)).ok).toBe(false);
    expect(seal.open(CH, Buffer.concat([sealed, Buffer.from('x')])).ok).toBe(false);
    for (let i = 0; i < 2000; i++) expect(seal.open(CH, randomBytes(Math.floor(Math.random() * 200))).ok).toBe(false);
    // The original is still accepted once: none of the above consumed its IV.
    expect(seal.open(CH, sealed).ok).toBe(true);
  });
});

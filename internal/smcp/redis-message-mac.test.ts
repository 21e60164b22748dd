import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SKEW_MS, RedisMessageMac } from './redis-message-mac.js';

const CH = 'smcp:link:node-2';

describe('RedisMessageMac: the seal on messages between nodes', () => {
  it('opens what it sealed once, on the channel it was sealed for', () => {
    const mac = new RedisMessageMac('k');
    const sealed = mac.seal(CH, '{"kind":"call"}');
    expect(mac.open('smcp:link:node-1', sealed)).toEqual({ ok: false, why: 'bad signature' });
    const r = mac.open(CH, sealed);
    expect(r.ok && r.payload.toString()).toBe('{"kind":"call"}');
    expect(mac.open(CH, sealed)).toEqual({ ok: false, why: 'replayed' });
  });

  it('refuses a message sealed with another API key, and one outside the time window', () => {
    let now = 1_000_000;
    const mac = new RedisMessageMac('k', () => now);
    expect(mac.open(CH, new RedisMessageMac('other').seal(CH, 'x'))).toEqual({ ok: false, why: 'bad signature' });
    const old = mac.seal(CH, 'x');
    now += MAX_SKEW_MS + 1;
    expect(mac.open(CH, old)).toMatchObject({ ok: false, why: expect.stringMatching(/^stale/) as string });
  });

  it('fuzz: no flipped byte, truncation, extension or random buffer is accepted, and none throws', () => {
    const mac = new RedisMessageMac('k');
    const sealed = mac.seal(CH, Buffer.from(JSON.stringify({ kind: 'call', event: 'client:tool_call', payload: { a: 1 } })));
    for (let i = 0; i < sealed.length; i++) {
      for (const bit of [1, 0x80]) {
        const m = Buffer.from(sealed);
        m[i]! ^= bit;
        expect(mac.open(CH, m).ok).toBe(false);
      }
    }
    for (let n = 0; n < sealed.length; n++) expect(mac.open(CH, sealed.subarray(0, n)).ok).toBe(false);
    expect(mac.open(CH, Buffer.concat([sealed, Buffer.from('x')])).ok).toBe(false);
    for (let i = 0; i < 2000; i++) expect(mac.open(CH, randomBytes(Math.floor(Math.random() * 200))).ok).toBe(false);
    // The original is still accepted once: none of the above consumed its nonce.
    expect(mac.open(CH, sealed).ok).toBe(true);
  });
});

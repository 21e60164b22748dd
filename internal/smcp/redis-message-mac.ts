/**
 * Authenticates every message mcpd-smcp nodes exchange through Redis, so Redis is not a back door into the
 * cluster: whoever can publish on Redis but lacks the cluster's API key cannot route a call, fake a departure
 * or broadcast into an office. A sealed message is
 *
 *   "MSMCP1" | timestamp (8 bytes, ms) | nonce (16 bytes) | HMAC-SHA256 (32 bytes) | payload
 *
 * with the HMAC over the channel name, the timestamp, the nonce and the payload, keyed by HKDF of the API key.
 * The channel binds a message to its destination (no replay onto another node's channel); the timestamp bounds
 * how long a captured message could be replayed, and the nonces seen within that window refuse the replay itself.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const MAGIC = Buffer.from('MSMCP1');
const TS = 8;
const NONCE = 16;
const MAC = 32;
const HEADER = MAGIC.length + TS + NONCE + MAC;

/** How far a message's timestamp may be from this node's clock (nodes' clocks must agree this well). */
export const MAX_SKEW_MS = 30_000;

export type OpenResult = { ok: true; payload: Buffer } | { ok: false; why: string };

export class RedisMessageMac {
  private readonly key: Buffer;
  /** Nonces accepted within the window, with when they may be forgotten. */
  private readonly seen = new Map<string, number>();

  constructor(
    apiKey: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', apiKey, 'mcpd-smcp', 'redis message mac v1', 32));
  }

  seal(channel: string, payload: Buffer | string): Buffer {
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const ts = Buffer.alloc(TS);
    ts.writeBigInt64BE(BigInt(this.now()));
    const nonce = randomBytes(NONCE);
    return Buffer.concat([MAGIC, ts, nonce, this.mac(channel, ts, nonce, body), body]);
  }

  /** The payload of an authentic, fresh, first-seen message on `channel`; otherwise why it was refused. */
  open(channel: string, raw: Buffer): OpenResult {
    if (raw.length < HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return { ok: false, why: 'not a sealed message' };
    const ts = raw.subarray(MAGIC.length, MAGIC.length + TS);
    const nonce = raw.subarray(MAGIC.length + TS, MAGIC.length + TS + NONCE);
    const mac = raw.subarray(MAGIC.length + TS + NONCE, HEADER);
    const body = raw.subarray(HEADER);
    if (!timingSafeEqual(mac, this.mac(channel, ts, nonce, body))) return { ok: false, why: 'bad signature' };
    const now = this.now();
    const sent = Number(ts.readBigInt64BE());
    if (Math.abs(now - sent) > MAX_SKEW_MS) return { ok: false, why: `stale: sent ${now - sent} ms ago` };
    this.forgetExpired(now);
    const id = nonce.toString('hex');
    if (this.seen.has(id)) return { ok: false, why: 'replayed' };
    this.seen.set(id, sent + MAX_SKEW_MS);
    return { ok: true, payload: body };
  }

  private mac(channel: string, ts: Buffer, nonce: Buffer, body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(channel).update('\0').update(ts).update(nonce).update(body).digest();
  }

  private forgetExpired(now: number): void {
    // Insertion order is close to timestamp order: stop at the first nonce still inside the window.
    for (const [id, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(id);
    }
  }
}

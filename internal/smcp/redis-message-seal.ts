/**
 * Seals every message mcpd-smcp nodes exchange through Redis, so Redis is neither a back door into the cluster
 * nor a window onto its traffic: whoever can read Redis sees no call arguments or results, and whoever can
 * publish there — an agent or computer holding the client API key included — cannot route a call, fake a
 * departure or broadcast into an office. A sealed message is AES-256-GCM (AEAD):
 *
 *   "MSMCP2" | timestamp (8 bytes, ms) | iv (12 bytes, random) | tag (16 bytes) | ciphertext
 *
 * keyed by HKDF of the node secret (never the client API key), with the channel name, the magic and the
 * timestamp as associated data. The channel binds a message to its destination (no replay onto another node's
 * channel); the timestamp bounds how long a captured message could be replayed, and the IVs seen within that
 * window refuse the replay itself.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('MSMCP2');
const TS = 8;
const IV = 12;
const TAG = 16;
const HEADER = MAGIC.length + TS + IV + TAG;

/** How far a message's timestamp may be from this node's clock (nodes' clocks must agree this well). */
export const MAX_SKEW_MS = 30_000;

/** The shortest node secret accepted: 32 characters (e.g. `openssl rand -base64 32` gives 44). */
export const MIN_NODE_SECRET_LENGTH = 32;

export type OpenResult = { ok: true; payload: Buffer } | { ok: false; why: string };

export class RedisMessageSeal {
  private readonly key: Buffer;
  /** IVs accepted within the window, with when they may be forgotten. */
  private readonly seen = new Map<string, number>();

  constructor(
    nodeSecret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', nodeSecret, 'mcpd-smcp', 'redis message seal v2 (aes-256-gcm)', 32));
  }

  seal(channel: string, payload: Buffer | string): Buffer {
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const ts = Buffer.alloc(TS);
    ts.writeBigInt64BE(BigInt(this.now()));
    const iv = randomBytes(IV);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(this.aad(channel, ts));
    const sealed = Buffer.concat([c.update(body), c.final()]);
    return Buffer.concat([MAGIC, ts, iv, c.getAuthTag(), sealed]);
  }

  /** The payload of an authentic, fresh, first-seen message on `channel`; otherwise why it was refused. */
  open(channel: string, raw: Buffer): OpenResult {
    if (raw.length < HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return { ok: false, why: 'not a sealed message' };
    const ts = raw.subarray(MAGIC.length, MAGIC.length + TS);
    const iv = raw.subarray(MAGIC.length + TS, MAGIC.length + TS + IV);
    const tag = raw.subarray(MAGIC.length + TS + IV, HEADER);
    let payload: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG });
      d.setAAD(this.aad(channel, ts));
      d.setAuthTag(tag);
      payload = Buffer.concat([d.update(raw.subarray(HEADER)), d.final()]);
    } catch {
      return { ok: false, why: 'bad seal (another node secret, altered, or sent to another channel)' };
    }
    const now = this.now();
    const sent = Number(ts.readBigInt64BE());
    if (Math.abs(now - sent) > MAX_SKEW_MS) return { ok: false, why: `stale: sent ${now - sent} ms ago` };
    this.forgetExpired(now);
    const id = iv.toString('hex');
    if (this.seen.has(id)) return { ok: false, why: 'replayed' };
    this.seen.set(id, sent + MAX_SKEW_MS);
    return { ok: true, payload };
  }

  private aad(channel: string, ts: Buffer): Buffer {
    return Buffer.concat([MAGIC, ts, Buffer.from(channel), Buffer.from([0])]);
  }

  private forgetExpired(now: number): void {
    // Insertion order is close to timestamp order: stop at the first IV still inside the window.
    for (const [id, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(id);
    }
  }
}

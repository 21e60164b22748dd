/** The three Redis connections of a node: adapter publish and subscribe, and registry commands. */
import { createAdapter } from '@socket.io/redis-adapter';
import { createClient, type RedisClientType } from 'redis';
import type { Server } from 'socket.io';
import { RedisMessageSeal } from './redis-message-seal.js';
import { backoffDelayMs, type Backoff } from '../shared/backoff.js';
import { openSubscriber, sealPublisher } from './sealed-redis.js';

/** A lost Redis connection: 100 ms doubling to 3 s (node-redis counts `retries` from 0). */
const REDIS_RECONNECT: Backoff = { baseMs: 100, maxMs: 3000, jitter: 0 };

export class RedisUnreachableError extends Error {}

export interface RedisClients {
  /** Publishes sealed messages (redis-message-seal.ts). */
  pub: RedisClientType;
  /** Delivers only authentic, fresh, first-seen messages. */
  sub: RedisClientType;
  data: RedisClientType;
  /** The raw connections, for closing. */
  raw: RedisClientType[];
}

/** `nodeSecret` keys the AEAD seal of every message the nodes exchange through Redis. */
export async function connectRedis(url: string, io: Server, nodeSecret: string, log: (msg: string) => void): Promise<RedisClients> {
  // A Redis unreachable at start is a configuration error to report, not something to retry forever;
  // once connected, a lost connection is retried (backoff up to 3 s) and the node carries on meanwhile.
  let started = false;
  const socket = {
    reconnectStrategy: (retries: number, cause: Error): number | Error => (started ? backoffDelayMs(retries + 1, REDIS_RECONNECT) : cause),
  };
  const pub = createClient({ url, socket }) as RedisClientType;
  const sub = pub.duplicate();
  // Registry commands fail at once while Redis is away (the request gets a 500 ack) instead of queueing
  // behind a reconnect that may never come, which would leave agents without an ack.
  const data = createClient({ url, socket, disableOfflineQueue: true }) as RedisClientType;
  for (const c of [pub, sub, data]) c.on('error', () => undefined);
  try {
    await Promise.all([pub.connect(), sub.connect(), data.connect()]);
  } catch (e) {
    await Promise.allSettled([pub, sub, data].map((c) => (c.isOpen ? c.disconnect() : undefined)));
    throw new RedisUnreachableError(`cannot reach Redis at ${withoutCredentials(url)}: ${(e as Error).message}`);
  }
  started = true;
  const mac = new RedisMessageSeal(nodeSecret);
  const sealed = { pub: sealPublisher(pub, mac), sub: openSubscriber(sub, mac, log) };
  io.adapter(createAdapter(sealed.pub, sealed.sub, { requestsTimeout: 5000 }));
  return { ...sealed, data, raw: [pub, sub, data] };
}

/** A Redis URL may carry a password (`redis://:secret@host`); messages show it without. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '<unparseable Redis URL>';
  }
}

/**
 * The pub/sub clients a node hands to the Socket.IO Redis adapter and to its NodeLink, wrapped so that every
 * message published is sealed (redis-message-seal.ts: encrypted and authenticated) and every message received is opened before anyone sees
 * it: a forged, altered, stale or replayed message is dropped (and counted in the log), never delivered.
 */
import type { RedisClientType } from 'redis';
import type { RedisMessageSeal } from './redis-message-seal.js';

type Listener = (message: Buffer | string, channel: Buffer | string) => unknown;
type Subscribe = (channels: string | string[], listener: Listener, bufferMode?: boolean) => Promise<unknown>;

/** Logs the first refusals and then one in every 1,000, so a flood of forgeries cannot flood the log. */
function refusalLog(log: (msg: string) => void): (channel: string, why: string) => void {
  let n = 0;
  return (channel, why) => {
    n++;
    if (n <= 10 || n % 1000 === 0) log(`dropped a Redis message on ${channel}: ${why} (${n} dropped so far)`);
  };
}

/** Methods of the real client, bound to it (the client keeps private fields a proxy's `this` cannot reach). */
function bound(target: object, prop: string | symbol): unknown {
  const v = Reflect.get(target, prop, target) as unknown;
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
}

export function sealPublisher(pub: RedisClientType, mac: RedisMessageSeal): RedisClientType {
  return new Proxy(pub, {
    get(target, prop) {
      if (prop === 'publish')
        return (channel: string, message: Buffer | string) => target.publish(channel, mac.seal(String(channel), message));
      return bound(target, prop);
    },
  });
}

export function openSubscriber(sub: RedisClientType, mac: RedisMessageSeal, log: (msg: string) => void): RedisClientType {
  const refused = refusalLog(log);
  const wrapped = new WeakMap<Listener, Listener>();
  const wrap = (listener: Listener, bufferMode?: boolean): Listener => {
    let w = wrapped.get(listener);
    if (!w) {
      w = (message, channel) => {
        const name = channel.toString();
        const r = mac.open(name, Buffer.isBuffer(message) ? message : Buffer.from(message, 'binary'));
        if (!r.ok) return refused(name, r.why);
        return bufferMode ? listener(r.payload, channel) : listener(r.payload.toString(), name);
      };
      wrapped.set(listener, w);
    }
    return w;
  };
  const subscribing =
    (real: Subscribe): Subscribe =>
    (channels, listener, bufferMode) =>
      real(channels, wrap(listener, bufferMode), true);
  return new Proxy(sub, {
    get(target, prop) {
      if (prop === 'subscribe' || prop === 'pSubscribe' || prop === 'SUBSCRIBE' || prop === 'PSUBSCRIBE')
        return subscribing(bound(target, prop) as Subscribe);
      if (prop === 'unsubscribe' || prop === 'pUnsubscribe' || prop === 'UNSUBSCRIBE' || prop === 'PUNSUBSCRIBE') {
        const real = bound(target, prop) as Subscribe;
        return (channels: string | string[], listener?: Listener) =>
          real(channels, (listener && wrapped.get(listener)) ?? (listener as Listener), true);
      }
      return bound(target, prop);
    },
  });
}

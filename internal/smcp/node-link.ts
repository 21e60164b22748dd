/**
 * Routed calls between mcpd-smcp nodes over Redis pub/sub, one channel per node. The caller publishes the
 * request to the target node's channel; that node emits it to its local socket and publishes the ack back to
 * the caller's channel. This replaces the adapter's broadcast-with-ack for routing, which costs a PUBSUB
 * NUMSUB round trip and a fan-out to every node per call; rooms and notifications still use the adapter.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import type { Namespace } from 'socket.io';
import { isClientEvent } from '../contract/smcp/events.js';
import { holdsSeat } from './session.js';

const channel = (node: string): string => `smcp:link:${node}`;

interface CallMessage {
  kind: 'call';
  id: string;
  from: string;
  sid: string;
  /** The seat the sender believes `sid` holds; a socket that no longer holds it gets `stale`. */
  office: string;
  name: string;
  event: string;
  payload: unknown;
  timeoutMs: number;
}
interface ReplyMessage {
  kind: 'reply';
  id: string;
  outcome: RemoteOutcome;
}

/**
 * What became of a call on the target node. `stale`: not delivered — the socket is not (or no longer) that
 * computer in that office, or no node received the request; `gone`: it disconnected after delivery.
 */
export type RemoteOutcome = { answer: unknown } | { gone: true } | { timeout: true } | { stale: true };

/** The target of a routed call: a socket and the seat it should hold. */
export interface RouteTarget {
  node: string;
  sid: string;
  office_id: string;
  name: string;
}

export class NodeLink {
  private readonly waiting = new Map<string, (o: RemoteOutcome) => void>();

  private constructor(
    private readonly nsp: Namespace,
    private readonly node: string,
    private readonly pub: RedisClientType,
    private readonly log: (msg: string) => void,
  ) {}

  static async start(
    nsp: Namespace,
    node: string,
    pub: RedisClientType,
    sub: RedisClientType,
    log: (msg: string) => void,
  ): Promise<NodeLink> {
    const link = new NodeLink(nsp, node, pub, log);
    await sub.subscribe(channel(node), (raw) => link.onMessage(raw));
    return link;
  }

  /** Emits `event` to socket `sid` on `node` and resolves with its ack; `timeout` after `timeoutMs` here too. */
  call(t: RouteTarget, event: string, payload: unknown, timeoutMs: number): Promise<RemoteOutcome> {
    const id = randomUUID();
    const { node, sid } = t;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish({ timeout: true }), timeoutMs);
      const finish = (o: RemoteOutcome): void => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(o);
      };
      this.waiting.set(id, finish);
      const msg: CallMessage = { kind: 'call', id, from: this.node, sid, office: t.office_id, name: t.name, event, payload, timeoutMs };
      this.pub.publish(channel(node), JSON.stringify(msg)).then(
        // Nobody subscribed: that node is gone (its seats are swept soon); the sender may look again.
        (receivers) => receivers === 0 && finish({ stale: true }),
        (e: unknown) => {
          this.log(`routing to node ${node}: ${(e as Error).message}`);
          finish({ gone: true });
        },
      );
    });
  }

  private onMessage(raw: string): void {
    let msg: CallMessage | ReplyMessage;
    try {
      msg = JSON.parse(raw) as CallMessage | ReplyMessage;
    } catch {
      return this.log('ignored an unreadable message on this node’s link channel');
    }
    if (msg.kind === 'reply') return this.waiting.get(msg.id)?.(msg.outcome);
    // Authentic (sealed-redis.ts) is not enough: only the client:* requests a node routes may be emitted.
    if (msg.kind !== 'call' || !isClientEvent(msg.event) || typeof msg.sid !== 'string' || !(msg.timeoutMs > 0))
      return this.log(`ignored a link message that is not a routable call (event ${JSON.stringify(String(msg.event))})`);
    // serve() turns a missing or silent socket into an outcome and logs a failed reply: it does not reject.
    void this.serve(msg);
  }

  private async serve(m: CallMessage): Promise<void> {
    const socket = this.nsp.sockets.get(m.sid);
    let outcome: RemoteOutcome;
    if (!socket || !holdsSeat(socket, m.office, m.name)) outcome = { stale: true };
    else {
      try {
        outcome = { answer: await socket.timeout(m.timeoutMs).emitWithAck(m.event, m.payload) };
      } catch {
        outcome = socket.connected ? { timeout: true } : { gone: true };
      }
    }
    const reply: ReplyMessage = { kind: 'reply', id: m.id, outcome };
    await this.pub
      .publish(channel(m.from), JSON.stringify(reply))
      .catch((e: unknown) => this.log(`reply to node ${m.from}: ${(e as Error).message}`));
  }
}

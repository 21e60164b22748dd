/**
 * Routes one `client:*` request to the computer's socket (on any node) and returns its ack. Every outcome is an
 * ack value: the computer's answer, or a flat ErrorPayload for a timeout (408), a computer that is gone (404) or
 * an empty answer — the agent never waits on a silent missing ack.
 */
import type { Namespace } from 'socket.io';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import type { NodeLink, RemoteOutcome } from './node-link.js';
import type { Member } from './registry.js';
import { holdsSeat } from './session.js';

type Fail = (e: ErrorPayload) => void;

/** forward()'s answer when the request was not delivered because the target no longer holds its seat. */
export const STALE = Symbol('stale route');

export class Forwarder {
  /** Calls in flight, by the target computer's sid, so its departure fails them immediately. */
  private readonly waiting = new Map<string, Set<Fail>>();

  /** Without a link (single node) every member is local. */
  constructor(
    private readonly nsp: Namespace,
    private readonly node: string,
    private readonly link?: NodeLink,
  ) {}

  get inFlight(): number {
    let n = 0;
    for (const s of this.waiting.values()) n += s.size;
    return n;
  }

  /** Requests forwarded from this node still waiting on the computer with this sid. */
  waitingOn(sid: string): number {
    return this.waiting.get(sid)?.size ?? 0;
  }

  /** The computer's answer, an ErrorPayload, or STALE (not delivered: look the seat up again). */
  async forward(target: Member, event: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    let fail!: Fail;
    const departed = new Promise<ErrorPayload>((resolve) => (fail = resolve));
    let set = this.waiting.get(target.sid);
    if (!set) this.waiting.set(target.sid, (set = new Set()));
    set.add(fail);
    try {
      return await Promise.race([this.emit(target, event, payload, timeoutMs), departed]);
    } finally {
      set.delete(fail);
      if (set.size === 0 && this.waiting.get(target.sid) === set) this.waiting.delete(target.sid);
    }
  }

  /** The computer with this sid left its office or disconnected: fail what waits on it. */
  gone(m: Pick<Member, 'sid' | 'name' | 'office_id'>): void {
    const set = this.waiting.get(m.sid);
    if (!set) return;
    this.waiting.delete(m.sid);
    const e = errorPayload(SMCP_CODES.notFound, `computer "${m.name}" left office "${m.office_id}" before answering`, {
      reason: 'computer_left',
      computer: m.name,
    });
    for (const f of set) f(e);
  }

  private async emit(target: Member, event: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    const outcome =
      this.link && target.node !== this.node
        ? await this.link.call(target, event, payload, timeoutMs)
        : await this.local(target, event, payload, timeoutMs);
    if ('stale' in outcome) return STALE;
    if ('timeout' in outcome)
      return errorPayload(SMCP_CODES.timeout, `computer "${target.name}" did not answer ${event} within ${timeoutMs} ms`, {
        timeout_ms: timeoutMs,
        computer: target.name,
      });
    if ('gone' in outcome)
      return errorPayload(SMCP_CODES.notFound, `computer "${target.name}" is no longer connected`, {
        reason: 'computer_left',
        computer: target.name,
      });
    if (outcome.answer === undefined || outcome.answer === null)
      return errorPayload(SMCP_CODES.internal, `computer "${target.name}" acknowledged ${event} without a payload`, {
        computer: target.name,
      });
    return outcome.answer;
  }

  private async local(target: Member, event: string, payload: unknown, timeoutMs: number): Promise<RemoteOutcome> {
    const socket = this.nsp.sockets.get(target.sid);
    if (!socket || !holdsSeat(socket, target.office_id, target.name)) return { stale: true };
    try {
      return { answer: await socket.timeout(timeoutMs).emitWithAck(event, payload) };
    } catch {
      return socket.connected ? { timeout: true } : { gone: true };
    }
  }
}

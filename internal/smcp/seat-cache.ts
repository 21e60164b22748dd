/**
 * Computer seats this node looked up in the shared (Redis) registry, so a routed call costs no Redis round
 * trip for the lookup. An entry may go stale — the computer left, moved office, or its node died — so the
 * node that delivers a request first checks that the target socket is still that computer in that office,
 * and answers `stale` if not (so does a link publish nobody received); the sender then looks the seat up
 * again. The cache therefore never routes a request outside the agent's office; departures that any node
 * reports (memberGone) drop entries early, so a retry is rare.
 */
import type { Member } from './registry.js';

const key = (office: string, name: string): string => `${office}\n${name}`;

export class SeatCache {
  private readonly seats = new Map<string, Member>();

  /** Bounded: computers that come and go without a departure reaching us cannot grow it for ever. */
  constructor(private readonly max = 10_000) {}

  get(office: string, name: string): Member | undefined {
    return this.seats.get(key(office, name));
  }

  put(m: Member): void {
    if (this.seats.size >= this.max) this.seats.clear();
    this.seats.set(key(m.office_id, m.name), m);
  }

  /** Drops the entry if it is still this member (a newer holder of the name stays). */
  forget(m: Pick<Member, 'sid' | 'office_id' | 'name'>): void {
    const k = key(m.office_id, m.name);
    if (this.seats.get(k)?.sid === m.sid) this.seats.delete(k);
  }
}

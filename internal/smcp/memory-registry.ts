import { seatOf, type ClaimResult, type Member, type OfficeRegistry } from './registry.js';

/** The single-node registry: a map of offices to seats, kept in this process. */
export class MemoryRegistry implements OfficeRegistry {
  private readonly offices = new Map<string, Map<string, Member>>();

  async claim(m: Member): Promise<ClaimResult> {
    let seats = this.offices.get(m.office_id);
    if (!seats) this.offices.set(m.office_id, (seats = new Map()));
    const seat = seatOf(m);
    const holder = seats.get(seat);
    if (holder && holder.sid !== m.sid) return { ok: false, holder };
    seats.set(seat, m);
    return { ok: true };
  }

  async release(m: Member): Promise<boolean> {
    const seats = this.offices.get(m.office_id);
    const seat = seatOf(m);
    if (seats?.get(seat)?.sid !== m.sid) return false;
    seats.delete(seat);
    if (seats.size === 0) this.offices.delete(m.office_id);
    return true;
  }

  async list(office: string): Promise<Member[]> {
    return [...(this.offices.get(office)?.values() ?? [])];
  }

  async computer(office: string, name: string): Promise<Member | undefined> {
    return this.offices.get(office)?.get(seatOf({ role: 'computer', name }));
  }

  async officesOf(name: string, max: number): Promise<string[]> {
    const seat = seatOf({ role: 'computer', name });
    const out: string[] = [];
    for (const [office, seats] of this.offices) if (seats.has(seat)) out.push(office);
    return out.sort().slice(0, max);
  }

  async sweep(): Promise<Member[]> {
    return [];
  }

  async close(): Promise<void> {
    this.offices.clear();
  }
}

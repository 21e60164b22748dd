/**
 * The office registry: who holds which seat. One agent seat per office and one seat per computer name per
 * office (names are unique per office, not per namespace — unlike the reference SDKs). Claims are atomic so
 * two nodes cannot both admit an agent into the same office.
 */
import type { SmcpRole } from '../contract/smcp/types.js';

export interface Member {
  sid: string;
  name: string;
  role: SmcpRole;
  office_id: string;
  /** The mcpd-smcp node whose socket this is; dead nodes' members are swept. */
  node: string;
}

/** `undefined` when the seat was taken; otherwise the member currently holding it. */
export type ClaimResult = { ok: true } | { ok: false; holder: Member };

export interface OfficeRegistry {
  claim(m: Member): Promise<ClaimResult>;
  /** Frees the seat if `m.sid` still holds it; true when it did. */
  release(m: Member): Promise<boolean>;
  list(office: string): Promise<Member[]>;
  computer(office: string, name: string): Promise<Member | undefined>;
  /** Offices holding a live computer of this name, sorted, at most `max` of them. */
  officesOf(name: string, max: number): Promise<string[]>;
  /** Members of dead nodes removed since the last call (Redis); memory registries never lose a node. */
  sweep(): Promise<Member[]>;
  close(): Promise<void>;
}

export function seatOf(m: Pick<Member, 'role' | 'name'>): string {
  return m.role === 'agent' ? 'agent' : `c:${m.name}`;
}

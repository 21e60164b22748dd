/** What the Server knows about one connection: the role and name it joined with and its current office. */
import type { Socket } from 'socket.io';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import type { SmcpRole } from '../contract/smcp/types.js';
import type { Member } from './registry.js';

export interface SessionData {
  /** Fixed by the first successful join: a connection is an agent or a computer for its whole life. */
  role?: SmcpRole;
  name?: string;
  office?: string;
}

export type Ack = (...args: unknown[]) => void;

export function sessionOf(socket: Socket): SessionData {
  return socket.data as SessionData;
}

export function memberOf(socket: Socket, node: string): Member | undefined {
  const s = sessionOf(socket);
  if (!s.role || !s.name || !s.office) return undefined;
  return { sid: socket.id, name: s.name, role: s.role, office_id: s.office, node };
}

/** Whether this socket is, right now, computer `name` of `office`: the check before delivering a routed request. */
export function holdsSeat(socket: Socket, office: string, name: string): boolean {
  const s = sessionOf(socket);
  return s.role === 'computer' && s.office === office && s.name === name;
}

/** Room name of an office; prefixed so an office id can never collide with a socket id room. */
export function officeRoom(office: string): string {
  return `office:${office}`;
}

/**
 * The sender must have joined an office in `role`, and a payload's `agent`/`computer` field must be its own
 * name. Returns the member, or the ErrorPayload to ack.
 */
export function requireMember(
  socket: Socket,
  node: string,
  role: SmcpRole,
  event: string,
  claimed?: { field: string; value: string },
): Member | ErrorPayload {
  const s = sessionOf(socket);
  if (s.role && s.role !== role)
    return errorPayload(SMCP_CODES.forbidden, `${event} is for ${role}s; this connection joined as a ${s.role}`, { event });
  const m = memberOf(socket, node);
  if (!m || m.role !== role)
    return errorPayload(SMCP_CODES.notInRoom, `join an office first: send server:join_office {role: "${role}", name, office_id}`, {
      event,
    });
  if (claimed && claimed.value !== m.name)
    return errorPayload(SMCP_CODES.forbidden, `${claimed.field}: "${claimed.value}" is not this connection's name "${m.name}"`, {
      field: claimed.field,
    });
  return m;
}

export function isMember(v: Member | ErrorPayload): v is Member {
  return 'sid' in v;
}

/**
 * server:join_office, server:leave_office, server:list_room and disconnect. Join and leave keep the protocol's
 * two-argument ack `(ok, message)`; the message carries the code as `"[4101] …"`. Office operations of one
 * connection run one at a time, so a flood of joins cannot interleave half-done seat changes.
 */
import type { Socket } from 'socket.io';
import { errorPayload, joinFailureMessage, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import { FIND_COMPUTER_MAX_OFFICES, NOTIFY_EVENTS, SERVER_EVENTS } from '../contract/smcp/events.js';
import type { EnterOfficeReq, FindComputerRet, ListRoomRet } from '../contract/smcp/types.js';
import { validateEnterOffice, validateFindComputer, validateLeaveOffice, validateListRoom } from '../contract/smcp/validate.js';
import type { SmcpContext } from './context.js';
import type { Member } from './registry.js';
import { isMember, memberOf, officeRoom, requireMember, sessionOf, type Ack } from './session.js';

/** Queued office operations per connection beyond which new ones are refused (a flood, not a client). */
const MAX_QUEUED_OFFICE_OPS = 16;

const queues = new WeakMap<Socket, { tail: Promise<void>; depth: number }>();

function serial(socket: Socket, op: () => Promise<void>): boolean {
  let q = queues.get(socket);
  if (!q) queues.set(socket, (q = { tail: Promise.resolve(), depth: 0 }));
  if (q.depth >= MAX_QUEUED_OFFICE_OPS) return false;
  q.depth++;
  const qq = q;
  qq.tail = qq.tail.then(op).finally(() => void qq.depth--);
  return true;
}

/**
 * Settles once every office operation this connection sent so far is done; undefined when none is
 * pending. A request an agent sends right after a join it did not wait for (the reference SDK does
 * not wait) is checked against the membership that join gives, as the sender's order says.
 */
export function officeOpsDone(socket: Socket): Promise<void> | undefined {
  const q = queues.get(socket);
  // An office operation that failed has acked its own error already; a request after it only needs it over.
  return q && q.depth > 0 ? q.tail.catch(() => undefined) : undefined;
}

function officeAck(ack: Ack | undefined, e?: ErrorPayload): void {
  if (!ack) return;
  if (e) ack(false, joinFailureMessage(e));
  else ack(true, null);
}

function notification(m: Member): Record<string, string> {
  return { office_id: m.office_id, [m.role]: m.name };
}

/** Leaves the member's office: `notify:leave_office` first (the spec's order), then the seat is freed. */
export async function leave(ctx: SmcpContext, socket: Socket | undefined, m: Member): Promise<void> {
  ctx.nsp.to(officeRoom(m.office_id)).except(m.sid).emit(NOTIFY_EVENTS.leaveOffice, notification(m));
  await ctx.registry.release(m);
  await socket?.leave(officeRoom(m.office_id));
  if (socket) sessionOf(socket).office = undefined;
  ctx.memberGone(m);
}

async function join(ctx: SmcpContext, socket: Socket, req: EnterOfficeReq): Promise<ErrorPayload | undefined> {
  const s = sessionOf(socket);
  if (s.role && s.role !== req.role)
    return errorPayload(SMCP_CODES.forbidden, `role: this connection joined as a ${s.role}; it cannot become a ${req.role}`, {
      field: 'role',
    });
  const old = memberOf(socket, ctx.node);
  if (old && old.office_id === req.office_id) {
    if (old.name === req.name) return undefined;
    return errorPayload(
      SMCP_CODES.badRequest,
      `name: already in office "${old.office_id}" as "${old.name}"; leave it first to rejoin as "${req.name}"`,
      {
        field: 'name',
      },
    );
  }
  const m: Member = { sid: socket.id, name: req.name, role: req.role, office_id: req.office_id, node: ctx.node };
  const claim = await ctx.registry.claim(m);
  if (!claim.ok) return seatTaken(m, claim.holder);
  if (old) await leave(ctx, socket, old);
  await socket.join(officeRoom(m.office_id));
  Object.assign(s, { role: m.role, name: m.name, office: m.office_id });
  socket.to(officeRoom(m.office_id)).emit(NOTIFY_EVENTS.enterOffice, notification(m));
  return undefined;
}

function seatTaken(m: Member, holder: Member): ErrorPayload {
  if (m.role === 'agent')
    return errorPayload(SMCP_CODES.roomFull, `office "${m.office_id}" already has an agent ("${holder.name}"); one agent per office`, {
      office_id: m.office_id,
    });
  return errorPayload(
    SMCP_CODES.roomFull,
    `name: computer "${m.name}" is already in office "${m.office_id}"; computer names are unique per office — pick another name`,
    { field: 'name', office_id: m.office_id },
  );
}

export function onJoin(ctx: SmcpContext, socket: Socket, payload: unknown, ack: Ack | undefined): void {
  const v = validateEnterOffice(payload);
  if (!v.ok) return officeAck(ack, v.error);
  const queued = serial(socket, async () => officeAck(ack, await join(ctx, socket, v.value).catch(internal(ctx))));
  if (!queued) officeAck(ack, tooMany());
}

export function onLeave(ctx: SmcpContext, socket: Socket, payload: unknown, ack: Ack | undefined): void {
  const v = validateLeaveOffice(payload);
  if (!v.ok) return officeAck(ack, v.error);
  const queued = serial(socket, async () => {
    const m = memberOf(socket, ctx.node);
    if (!m || m.office_id !== v.value.office_id)
      return officeAck(
        ack,
        errorPayload(SMCP_CODES.notInRoom, `office_id: this connection is not in office "${v.value.office_id}"`, { field: 'office_id' }),
      );
    officeAck(ack, await leave(ctx, socket, m).then(() => undefined, internal(ctx)));
  });
  if (!queued) officeAck(ack, tooMany());
}

export function onDisconnect(ctx: SmcpContext, socket: Socket): void {
  // Not limited by the queue depth: the seat must be freed whatever was queued before.
  const q = queues.get(socket);
  const run = async (): Promise<void> => {
    const m = memberOf(socket, ctx.node);
    if (m) await leave(ctx, undefined, m).catch((e: unknown) => ctx.log(`leave after disconnect of ${m.name}: ${(e as Error).message}`));
  };
  if (q) q.tail = q.tail.then(run);
  // run() logs a failed leave itself and does not reject; the disconnect handler cannot wait.
  else void run();
}

export async function onListRoom(ctx: SmcpContext, socket: Socket, payload: unknown, ack: Ack): Promise<void> {
  const v = validateListRoom(payload);
  if (!v.ok) return ack(v.error);
  const m = requireMember(socket, ctx.node, 'agent', 'server:list_room');
  if (!isMember(m)) return ack(m);
  if (v.value.office_id !== m.office_id) {
    const exists = (await ctx.registry.list(v.value.office_id)).length > 0;
    return ack(
      exists
        ? errorPayload(SMCP_CODES.crossRoomAccess, `office_id: "${v.value.office_id}" is not your office "${m.office_id}"`, {
            field: 'office_id',
          })
        : errorPayload(SMCP_CODES.roomNotFound, `office_id: no office "${v.value.office_id}"`, { field: 'office_id' }),
    );
  }
  const members = await ctx.registry.list(m.office_id);
  const ret: ListRoomRet = {
    sessions: members.map(({ sid, name, role, office_id }) => ({ sid, name, role, office_id })),
    req_id: v.value.req_id,
  };
  ack(ret);
}

/**
 * `server:find_computer` (our extension): the offices holding a computer of that name, so an agent that
 * knows only the computer can join its office. For agents and connections that have not joined yet; it
 * tells no more than trying to join would. Queued like office operations, so a flood stays bounded.
 */
export function onFindComputer(ctx: SmcpContext, socket: Socket, payload: unknown, ack: Ack): void {
  const v = validateFindComputer(payload);
  if (!v.ok) return ack(v.error);
  const s = sessionOf(socket);
  if (s.role === 'computer')
    return ack(errorPayload(SMCP_CODES.forbidden, `${SERVER_EVENTS.findComputer} is for agents; this connection joined as a computer`));
  const queued = serial(socket, async () => {
    try {
      const offices = await ctx.registry.officesOf(v.value.computer, FIND_COMPUTER_MAX_OFFICES);
      const ret: FindComputerRet = { offices, req_id: v.value.req_id };
      ack(ret);
    } catch (e) {
      ack(internal(ctx)(e));
    }
  });
  if (!queued) ack(tooMany());
}

function tooMany(): ErrorPayload {
  return errorPayload(
    SMCP_CODES.badRequest,
    `more than ${MAX_QUEUED_OFFICE_OPS} office requests are waiting on this connection; wait for their acks before sending more`,
  );
}

function internal(ctx: SmcpContext): (e: unknown) => ErrorPayload {
  return (e) => {
    ctx.log(`office operation failed: ${(e as Error).message}`);
    return errorPayload(SMCP_CODES.internal, `internal error: ${(e as Error).message}`);
  };
}

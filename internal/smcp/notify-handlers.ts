/**
 * `server:update_*` from a computer become `notify:*` to its office, and `server:tool_call_cancel` from an agent
 * becomes `notify:tool_call_cancel`; both skip the sender. The protocol defines no ack for these; when the
 * sender asked for one anyway it gets `null` on success and the ErrorPayload otherwise.
 */
import type { Socket } from 'socket.io';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import { mayCancel } from './agent-calls.js';
import { NOTIFY_EVENTS, UPDATE_TO_NOTIFY } from '../contract/smcp/events.js';
import { validateToolCallCancel, validateUpdate } from '../contract/smcp/validate.js';
import type { SmcpContext } from './context.js';
import { forwardedSoFar } from './route-handlers.js';
import { isMember, officeRoom, requireMember, type Ack } from './session.js';
import { must } from '../shared/must.js';

function done(ctx: SmcpContext, event: string, ack: Ack | undefined, e?: ErrorPayload): void {
  if (ack) ack(e ?? null);
  else if (e) ctx.log(`${event} refused (no ack requested): ${e.message}`);
}

export function onUpdate(ctx: SmcpContext, socket: Socket, event: string, payload: unknown, ack: Ack | undefined): void {
  const v = validateUpdate(payload);
  if (!v.ok) return done(ctx, event, ack, v.error);
  const m = requireMember(socket, ctx.node, 'computer', event, { field: 'computer', value: v.value.computer });
  if (!isMember(m)) return done(ctx, event, ack, m);
  // dispatch routes only the update events UPDATE_TO_NOTIFY maps here.
  socket.to(officeRoom(m.office_id)).emit(must(UPDATE_TO_NOTIFY[event], `the notify event for ${event}`), { computer: m.name });
  done(ctx, event, ack);
}

export async function onToolCallCancel(
  ctx: SmcpContext,
  socket: Socket,
  event: string,
  payload: unknown,
  ack: Ack | undefined,
): Promise<void> {
  const v = validateToolCallCancel(payload);
  if (!v.ok) return done(ctx, event, ack, v.error);
  // Any `agent` value is accepted (the reference SDK sends its agent_id); what may be cancelled is decided by
  // the connection: only its own calls, in flight or ended lately (the computer may still be working on one).
  const m = requireMember(socket, ctx.node, 'agent', event);
  if (!isMember(m)) return done(ctx, event, ack, m);
  // Never overtake the call being cancelled: it may still be in its registry lookup.
  await forwardedSoFar(socket);
  if (!mayCancel(socket, v.value.req_id))
    return done(
      ctx,
      event,
      ack,
      errorPayload(SMCP_CODES.notFound, `req_id: this connection made no tool call "${v.value.req_id}" lately; nothing was cancelled`, {
        field: 'req_id',
      }),
    );
  // The computer got the call under the connection's joined name (route-handlers.ts), so the cancel names it too.
  socket.to(officeRoom(m.office_id)).emit(NOTIFY_EVENTS.toolCallCancel, { agent: m.name, req_id: v.value.req_id });
  done(ctx, event, ack);
}

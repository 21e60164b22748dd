/**
 * `client:*` from an agent: checked (role, office, own name, payload), then forwarded to the named computer
 * **in the agent's office** with the ack returned. The timeout is the request's `timeout` for
 * `client:tool_call`, 30 s for the others.
 */
import type { Socket } from 'socket.io';
import { errorPayload, SMCP_CODES } from '../../domain/smcp/error-codes.js';
import { CLIENT_EVENTS, DEFAULT_ROUTE_TIMEOUT_MS, type ClientEvent } from '../../domain/smcp/events.js';
import { validateClientRequest } from '../../domain/smcp/validate.js';
import type { SmcpContext } from './context.js';
import { isMember, requireMember, type Ack } from './session.js';

/**
 * Per agent connection, the tail of its requests still being looked up. The lookup is asynchronous (Redis), so
 * without this a `server:tool_call_cancel` sent right after a call could overtake it and reach the computer
 * first, where an unknown req_id is ignored.
 */
const lookups = new WeakMap<Socket, Promise<unknown>>();

/** Resolves once every request this connection sent so far has been forwarded (or refused). */
export function forwardedSoFar(socket: Socket): Promise<unknown> {
  return lookups.get(socket) ?? Promise.resolve();
}

export async function onClientRequest(ctx: SmcpContext, socket: Socket, event: ClientEvent, payload: unknown, ack: Ack): Promise<void> {
  const v = validateClientRequest(event, payload);
  if (!v.ok) return ack(v.error);
  const req = v.value;
  const m = requireMember(socket, ctx.node, 'agent', event, { field: 'agent', value: req.agent });
  if (!isMember(m)) return ack(m);
  const before = forwardedSoFar(socket);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  lookups.set(socket, gate);
  let answer: Promise<unknown>;
  try {
    await before;
    const target = await ctx.registry.computer(m.office_id, req.computer);
    if (!target)
      return ack(
        errorPayload(SMCP_CODES.notFound, `computer: no computer "${req.computer}" in office "${m.office_id}"`, {
          field: 'computer',
          office_id: m.office_id,
        }),
      );
    const timeoutMs = event === CLIENT_EVENTS.toolCall ? (req as unknown as { timeout: number }).timeout * 1000 : DEFAULT_ROUTE_TIMEOUT_MS;
    // forward() emits synchronously; only then may a later cancel from this agent go out.
    answer = ctx.forwarder.forward(target, event, req, timeoutMs);
  } finally {
    release();
    if (lookups.get(socket) === gate) lookups.delete(socket);
  }
  ack(await answer);
}

/**
 * `client:*` from an agent: checked (role, office, payload, in-flight caps), then forwarded to the named
 * computer **in the agent's office** with the ack returned. The request is attributed to the connection's own
 * identity: whatever its `agent` field says (the reference SDK puts its agent_id there, not the name it joined
 * with), the computer receives the joined name. The timeout is the request's `timeout` for `client:tool_call`,
 * 30 s for the others.
 */
import type { Socket } from 'socket.io';
import { badField, errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import { CLIENT_EVENTS, DEFAULT_ROUTE_TIMEOUT_MS, type ClientEvent } from '../contract/smcp/events.js';
import { validateClientRequest, type RoutedRequest } from '../contract/smcp/validate.js';
import type { SmcpContext } from './context.js';
import { STALE } from './forwarder.js';
import { admitRequest, ownsToolCall, ownToolCall, tooMany } from './agent-calls.js';
import type { Member } from './registry.js';
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

export async function onClientRequest(
  ctx: SmcpContext,
  socket: Socket,
  event: ClientEvent,
  payload: unknown,
  bytes: number,
  ack: Ack,
): Promise<void> {
  const v = validateClientRequest(event, payload);
  if (!v.ok) return ack(v.error);
  const m = requireMember(socket, ctx.node, 'agent', event);
  if (!isMember(m)) return ack(m);
  const req = { ...v.value, agent: m.name };
  if (event === CLIENT_EVENTS.toolCall && ownsToolCall(socket, req.req_id))
    return ack(badField('req_id', `"${req.req_id}" is already in flight on this connection; use a fresh req_id for each call`));
  const admitted = admitRequest(socket, bytes, ctx.limits);
  if (typeof admitted !== 'function') return ack(admitted);
  const disown = event === CLIENT_EVENTS.toolCall ? ownToolCall(socket, req.req_id) : undefined;
  try {
    await route(ctx, socket, event, req, m, ack);
  } finally {
    admitted();
    disown?.();
  }
}

async function route(ctx: SmcpContext, socket: Socket, event: ClientEvent, req: RoutedRequest, m: Member, ack: Ack): Promise<void> {
  const before = forwardedSoFar(socket);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  lookups.set(socket, gate);
  const timeoutMs = event === CLIENT_EVENTS.toolCall ? (req as unknown as { timeout: number }).timeout * 1000 : DEFAULT_ROUTE_TIMEOUT_MS;
  let answer: Promise<unknown>;
  let target: Member | undefined;
  let cached: boolean;
  try {
    await before;
    target = ctx.seats?.get(m.office_id, req.computer);
    cached = target !== undefined;
    target ??= await lookup(ctx, m.office_id, req.computer);
    if (!target) return ack(noComputer(m.office_id, req.computer));
    const busy = computerBusy(ctx, target);
    if (busy) return ack(busy);
    // forward() emits synchronously; only then may a later cancel from this agent go out.
    answer = ctx.forwarder.forward(target, event, req, timeoutMs);
  } finally {
    release();
    if (lookups.get(socket) === gate) lookups.delete(socket);
  }
  let result = await answer;
  if (result === STALE && cached) {
    // The cached seat was out of date and nothing was delivered: once more with the registry's answer.
    // This second delivery is outside the ordering gate, so a cancel sent within that one round trip may
    // reach the computer first and be ignored; only a computer that just left or moved is affected.
    ctx.seats?.forget(target);
    const fresh = await lookup(ctx, m.office_id, req.computer);
    if (!fresh) return ack(noComputer(m.office_id, req.computer));
    result = await ctx.forwarder.forward(fresh, event, req, timeoutMs);
  }
  ack(result === STALE ? computerLeft(target) : result);
}

async function lookup(ctx: SmcpContext, office: string, name: string): Promise<Member | undefined> {
  const m = await ctx.registry.computer(office, name);
  if (m) ctx.seats?.put(m);
  return m;
}

function computerBusy(ctx: SmcpContext, target: Member): ErrorPayload | undefined {
  const n = ctx.forwarder.waitingOn(target.sid);
  if (n < ctx.limits.perComputer) return undefined;
  return tooMany(
    `computer "${target.name}" already has ${n} requests waiting for its answer (at most ${ctx.limits.perComputer})`,
    'per_computer',
    ctx.limits.perComputer,
  );
}

function noComputer(office: string, name: string): ErrorPayload {
  return errorPayload(SMCP_CODES.notFound, `computer: no computer "${name}" in office "${office}"`, {
    field: 'computer',
    office_id: office,
  });
}

function computerLeft(m: Member): ErrorPayload {
  return errorPayload(SMCP_CODES.notFound, `computer "${m.name}" is no longer connected`, { reason: 'computer_left', computer: m.name });
}

/**
 * One entry point for every event of a connection: size limit, classification (client:/server:/notify:/
 * unknown) and a guaranteed ack. Whatever goes wrong, an event that asked for an ack gets one, and nothing
 * thrown here reaches Socket.IO (which would drop the ack silently, the reference server's failure mode).
 */
import type { Socket } from 'socket.io';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';
import { isClientEvent, isNotifyEvent, SERVER_EVENTS, UPDATE_TO_NOTIFY } from '../contract/smcp/events.js';
import type { SmcpContext } from './context.js';
import { officeOpsDone, onFindComputer, onJoin, onLeave, onListRoom } from './office-handlers.js';
import { onToolCallCancel, onUpdate } from './notify-handlers.js';
import { onClientRequest } from './route-handlers.js';
import type { Ack } from './session.js';

export interface DispatchLimits {
  /** JSON size of one event's arguments beyond which it is refused with a 400. */
  maxPayloadBytes: number;
}

function payloadBytes(args: unknown[]): number {
  try {
    return Buffer.byteLength(JSON.stringify(args) ?? '');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function isOfficeOp(event: string): boolean {
  return event === SERVER_EVENTS.joinOffice || event === SERVER_EVENTS.leaveOffice || event === SERVER_EVENTS.findComputer;
}

export function dispatcher(ctx: SmcpContext, limits: DispatchLimits): (socket: Socket) => void {
  return (socket) => {
    socket.onAny((event: unknown, ...args: unknown[]) => {
      const ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : undefined;
      const reply = (e: ErrorPayload): void => (ack ? ack(e) : ctx.log(`${String(event)} refused (no ack requested): ${e.message}`));
      const size = payloadBytes(args);
      if (size > limits.maxPayloadBytes)
        return reply(
          errorPayload(SMCP_CODES.badRequest, `payload is ${size} bytes; this server accepts at most ${limits.maxPayloadBytes}`, {
            reason: 'payload_too_large',
            size,
            limit: limits.maxPayloadBytes,
          }),
        );
      route(ctx, socket, String(event), args[0], size, ack, reply).catch((e: unknown) => {
        ctx.log(`${String(event)} failed: ${(e as Error).message}`);
        reply(errorPayload(SMCP_CODES.internal, `internal error handling ${String(event)}: ${(e as Error).message}`));
      });
    });
  };
}

async function route(
  ctx: SmcpContext,
  socket: Socket,
  event: string,
  payload: unknown,
  size: number,
  ack: Ack | undefined,
  reply: (e: ErrorPayload) => void,
): Promise<void> {
  // Office operations queue among themselves; anything else sent after one waits for it, so it sees the
  // membership its sender's earlier join or leave gives (the order the sender emitted them in).
  const before = isOfficeOp(event) ? undefined : officeOpsDone(socket);
  if (before) await before;
  if (isClientEvent(event)) {
    if (!ack) return reply(errorPayload(SMCP_CODES.badRequest, `${event} needs an ack callback: its answer is the ack`));
    return onClientRequest(ctx, socket, event, payload, size, ack);
  }
  switch (event) {
    case SERVER_EVENTS.joinOffice:
      return onJoin(ctx, socket, payload, ack);
    case SERVER_EVENTS.leaveOffice:
      return onLeave(ctx, socket, payload, ack);
    case SERVER_EVENTS.listRoom:
      if (!ack) return reply(errorPayload(SMCP_CODES.badRequest, `${event} needs an ack callback: its answer is the ack`));
      return onListRoom(ctx, socket, payload, ack);
    case SERVER_EVENTS.findComputer:
      if (!ack) return reply(errorPayload(SMCP_CODES.badRequest, `${event} needs an ack callback: its answer is the ack`));
      return onFindComputer(ctx, socket, payload, ack);
    case SERVER_EVENTS.toolCallCancel:
      return onToolCallCancel(ctx, socket, event, payload, ack);
  }
  if (UPDATE_TO_NOTIFY[event]) return onUpdate(ctx, socket, event, payload, ack);
  if (isNotifyEvent(event))
    return reply(errorPayload(SMCP_CODES.forbidden, `${event}: notify:* events are sent by the server only`, { event }));
  reply(errorPayload(SMCP_CODES.badRequest, `unknown event "${event}"`, { event }));
}

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

export async function onClientRequest(ctx: SmcpContext, socket: Socket, event: ClientEvent, payload: unknown, ack: Ack): Promise<void> {
  const v = validateClientRequest(event, payload);
  if (!v.ok) return ack(v.error);
  const req = v.value;
  const m = requireMember(socket, ctx.node, 'agent', event, { field: 'agent', value: req.agent });
  if (!isMember(m)) return ack(m);
  const target = await ctx.registry.computer(m.office_id, req.computer);
  if (!target)
    return ack(
      errorPayload(SMCP_CODES.notFound, `computer: no computer "${req.computer}" in office "${m.office_id}"`, {
        field: 'computer',
        office_id: m.office_id,
      }),
    );
  const timeoutMs = event === CLIENT_EVENTS.toolCall ? (req as unknown as { timeout: number }).timeout * 1000 : DEFAULT_ROUTE_TIMEOUT_MS;
  ack(await ctx.forwarder.forward(target, event, req, timeoutMs));
}

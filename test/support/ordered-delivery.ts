import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { NotificationsFirst } from '../../internal/core/infra/jsonrpc/notifications-first.js';

/**
 * The MCP SDK client drops a `notifications/progress` read in the same chunk as its response (see
 * notifications-first.ts). However the gateway spaces its writes, a busy test process reads both at
 * once — the flake of the final progress step. The gateway's part (every progress written before the
 * result) is asserted on the wire; this gives the tests' SDK clients the remedy the core applies to
 * its own downstream hop, so what they assert about delivered progress holds on any machine.
 */
export function deliverNotificationsFirst(transport: Transport): void {
  const inner = transport.onmessage;
  if (!inner) throw new Error('deliverNotificationsFirst: connect the client before wrapping its transport');
  const ordered = new NotificationsFirst<JSONRPCMessage>((m) => {
    inner(m);
    return 'method' in m && !('id' in m);
  });
  transport.onmessage = (m) => ordered.push(m);
}

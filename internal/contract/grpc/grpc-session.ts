import type { ControlPlaneClient } from '../gen/mcpd/control/v1/control.js';
import type { SessionHello } from '../gen/mcpd/control/v1/session.js';
import { SessionClient, type ErrorMapper } from '../session/session-client.js';
import { fromServiceError } from '../session/status-map.js';

// Apart from session-client.ts, which the gateway loads: this one needs @grpc/grpc-js (status-map.ts).
const grpcError: ErrorMapper = (e) => fromServiceError(e as Parameters<typeof fromServiceError>[0]);

/** A Session over the gRPC `Session` RPC, for gRPC clients (gateways use the framed socket: SessionClient.connect). */
export function openGrpcSession(client: ControlPlaneClient, hello: SessionHello, timeoutMs = 5000): Promise<SessionClient> {
  return SessionClient.handshake(client.session(), hello, timeoutMs, grpcError);
}

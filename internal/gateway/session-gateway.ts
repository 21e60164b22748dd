import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SessionClient } from '../contract/session/session-client.js';

/** One MCP session's server side: the gateway (its own core Session, its own caller presence). */
export interface SessionGateway {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
  /** Its core Session (waiting for one as its requests do), for a 2026-07-28 lane's raw `tools/call`. */
  readonly coreSession?: () => Promise<SessionClient>;
}

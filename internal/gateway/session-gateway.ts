import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** One MCP session's server side: the gateway (its own core Session, its own caller presence). */
export interface SessionGateway {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

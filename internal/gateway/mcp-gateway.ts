import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpDispatcher } from './mcp-dispatcher.js';
import type { GatewayOptions } from './adapter-host.js';

export type { GatewayOptions } from './adapter-host.js';

/**
 * One MCP session of `mcpdmcp --http` (and one 2026-07-28 lane) on the gateway's one dispatcher
 * (mcp-dispatcher.ts), the same that serves stdio: each MCP request becomes a request on the Session
 * stream to the core. Only when a session's client finished initializing does it take its core link, so
 * a flood of bare `initialize` requests costs the core nothing.
 */
export class Gateway {
  /** The session's MCP side (what the adapters see of the client). */
  readonly dispatcher: McpDispatcher;

  constructor(opts: GatewayOptions) {
    this.dispatcher = new McpDispatcher(opts);
    this.dispatcher.onInitialized(() => this.dispatcher.host.link.warm());
  }

  connect(transport: Transport): Promise<void> {
    return this.dispatcher.connect(transport);
  }

  /** The core Session this gateway's requests go on (a 2026-07-28 lane sends `tools/call` on it directly). */
  readonly coreSession = () => this.dispatcher.host.link.session(this.dispatcher.host.coreWaitMs);

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

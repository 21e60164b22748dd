import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { registerAreaHandlers } from './gateway-areas.js';
import { AREAS } from '../contract/areas/all-areas.js';
import { FastToolCalls } from './fast-tool-calls.js';
import { StdioServerLineTransport } from './stdio-server-transport.js';
import { gatewayInstructions } from './early-initialize.js';
import { sdkGatewayServer } from './sdk-gateway-server.js';
import { AdapterHost, gatewayAdapters, mergeCapabilities, type GatewayOptions } from './adapter-host.js';

export type { GatewayOptions } from './adapter-host.js';

/**
 * The MCP server of one session on the SDK's Server: what `mcpdmcp --http` runs per session (and per
 * 2026-07-28 lane). It answers initialize itself, then turns each MCP request into a request on the
 * Session stream to the core. Each slice of the MCP surface has its adapter in adapters/. On stdio, mcpdmcp serves
 * with its own dispatcher instead (stdio-gateway.ts), which does not load the SDK's schemas.
 */
export class Gateway {
  readonly server: Server;
  private readonly host: AdapterHost;

  constructor(opts: GatewayOptions) {
    const surface = gatewayAdapters();
    this.server = new Server(
      { name: 'mcpd', version: opts.version },
      { capabilities: mergeCapabilities(surface), instructions: gatewayInstructions(opts.caller) },
    );
    this.host = new AdapterHost(opts, surface, sdkGatewayServer(this.server));
    // Every method the control-plane areas declare for the gateway gets its handler here.
    registerAreaHandlers(this.server, AREAS, this.host.adapters, (method, params, extra, token) =>
      this.host.forward(method, params, extra, token),
    );
  }

  async connect(transport: Transport): Promise<void> {
    const link = this.host.link;
    if (transport instanceof StdioServerLineTransport) {
      const fast = new FastToolCalls({
        session: this.coreSession,
        liveSession: () => link.live(),
        write: (b, role) => {
          transport.writeRaw(b, role);
        },
      });
      transport.intercept = (m) => fast.offer(m);
    }
    await this.server.connect(transport);
    if (transport instanceof StdioServerLineTransport) link.warm();
    else {
      // HTTP: a session holds a core link only once its client finished initializing, so a flood of
      // bare `initialize` requests costs the core nothing.
      const previous = this.server.oninitialized;
      this.server.oninitialized = () => {
        previous?.();
        link.warm();
      };
    }
  }

  /** The core Session this gateway's requests go on (the stdio fast lane and a 2026-07-28 lane send `tools/call` on it directly). */
  readonly coreSession = () => this.host.link.session(this.host.coreWaitMs);

  async close(): Promise<void> {
    this.host.link.close();
    await this.server.close();
  }
}

import { Gateway, type GatewayOptions } from './mcp-gateway.js';
import { runHttpGateway } from './http-main.js';
import { SharedCoreConnection } from './shared-core-connection.js';
import type { TokenSources } from './http-token.js';

// The SDK's Server and `mcpdmcp --http`'s whole code path behind one module: the program imports it only when --http is given,
// and scripts/build-bundles.mjs builds it apart from the stdio gateway, so the SDK's Server and the HTTP
// transport never share a chunk with what a stdio session loads (docs/benchmarks.md, "Start-up").

export interface ServeHttpOptions {
  /** What every session's Gateway gets; each opens its core Session on the shared connection. */
  gateway: Omit<GatewayOptions, 'openSession'>;
  /** The --http value. */
  address: string;
  tokens: TokenSources;
  /** --max-sessions. */
  maxSessions?: string;
}

/** Serves MCP streamable HTTP until SIGINT/SIGTERM (http-main.ts), every HTTP session a gateway of its own. */
export async function serveHttp(o: ServeHttpOptions): Promise<void> {
  await runHttpGateway({
    address: o.address,
    tokens: o.tokens,
    maxSessions: o.maxSessions,
    newSession: sharedGateways(o.gateway),
    caller: o.gateway.caller,
    version: o.gateway.version,
    log: o.gateway.log,
  });
}

/** Makes gateways (the SDK's Server) whose core Sessions are channels of one shared core connection. */
export function sharedGateways(options: Omit<GatewayOptions, 'openSession'>): () => Gateway {
  const shared = new SharedCoreConnection(options.socket);
  return () => new Gateway({ ...options, openSession: (hello) => shared.openSession(hello) });
}

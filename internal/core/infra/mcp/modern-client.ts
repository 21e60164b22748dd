import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHTTPClientTransport,
  type DiscoverResult,
  type StreamableHTTPClientTransportOptions as ModernHTTPOptions,
  type Transport as ModernTransport,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JsonObject } from '../../../shared/json.js';

/** How a 2026 server's input request reaches the caller: the launcher's onServerRequest, bound to one instance. */
export type InputRequestHandler = (method: string, params: JsonObject, signal: AbortSignal) => Promise<JsonObject>;

export interface ModernClientOptions {
  clientInfo: { name: string; version: string };
  capabilities: JsonObject;
  /** Absent: an InputRequiredResult fails the call with the SDK's "not supported" error. */
  onInputRequest?: InputRequestHandler;
  /** Rounds of InputRequiredResult one request may take before it fails (a server that never finishes). */
  maxRounds?: number;
}

const DEFAULT_MAX_ROUNDS = 8;
/** The embedded requests of an InputRequiredResult, the same three a 2025 server sends as requests. */
const INPUT_METHODS = [
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
] as const;

// Everything of SDK v2 the core uses is here, and the launcher imports this module only when a server's
// server/discover offered 2026-07-28: a core whose servers are all 2025-era never loads SDK v2 (about 4 MB
// of its RSS, docs/benchmarks.md).

/**
 * An SDK v2 client for a 2026-07-28 server. An InputRequiredResult is fulfilled inside the core: each embedded
 * request (sampling, elicitation, roots) goes to the caller as an ordinary server→client request through the
 * same path a 2025 server's requests take (decision 20), and the SDK retries the downstream request with the
 * answers and the server's `requestState` echoed byte for byte. The retry runs on this client, so it reaches
 * the same pooled instance, and requestState never leaves the core: it needs no namespacing per downstream.
 */
export function createModernClient(o: ModernClientOptions): ModernClient {
  const client = new ModernClient(o.clientInfo, {
    capabilities: o.capabilities,
    inputRequired: { autoFulfill: true, maxRounds: o.maxRounds ?? DEFAULT_MAX_ROUNDS },
  });
  const forward = o.onInputRequest;
  if (forward) {
    for (const [method, capability] of INPUT_METHODS) {
      // Only what the core declared: the SDK refuses a handler for a capability the client lacks, and a
      // server asks only for what the client declared.
      if (o.capabilities[capability] === undefined) continue;
      client.setRequestHandler(
        method,
        async (req, ctx) => (await forward(method, (req.params ?? {}) as JsonObject, ctx.mcpReq.signal)) as never,
      );
    }
  }
  return client;
}

/** Connects with the discover result the probe already has: no second round trip, the era is fixed. */
export async function connectModern(
  client: ModernClient,
  transport: Transport | ModernTransport,
  discover: DiscoverResult,
  opts: { signal?: AbortSignal; timeoutMs: number },
): Promise<void> {
  // The core's stdio transport implements the v1 Transport interface, which v2's extends only with optional
  // members: the same object serves both clients.
  await client.connect(transport as ModernTransport, { prior: { kind: 'modern', discover }, signal: opts.signal, timeout: opts.timeoutMs });
}

/**
 * SDK v2's Streamable HTTP transport, which speaks the 2026 HTTP rules (no session, Mcp-Method/Mcp-Name
 * headers). The OAuth provider's interface is the same in both SDKs.
 */
export function modernHttpTransport(
  url: URL,
  o: { requestInit: RequestInit; authProvider?: OAuthClientProvider; fetch?: ModernHTTPOptions['fetch'] },
): Transport {
  const authProvider = o.authProvider as unknown as ModernHTTPOptions['authProvider'];
  return new ModernHTTPClientTransport(url, { requestInit: o.requestInit, authProvider, fetch: o.fetch }) as unknown as Transport;
}

/**
 * The one place mcpd reaches past the MCP SDK's public API. Each use says why; sdk-internals.test.ts
 * fails on an SDK upgrade that moves what is used here, instead of the gateway changing behaviour quietly.
 */
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

type BaseSetRequestHandler = (this: unknown, ...args: unknown[]) => void;

/** The base implementation, checked: a renamed or removed method fails here, loudly, at startup. */
export function protocolSetRequestHandler(): BaseSetRequestHandler {
  const fn = (Protocol.prototype as unknown as Record<string, unknown>).setRequestHandler;
  if (typeof fn !== 'function')
    throw new Error('MCP SDK: Protocol.prototype.setRequestHandler is gone; update internal/gateway/sdk-internals.ts');
  return fn as BaseSetRequestHandler;
}

/**
 * `server.setRequestHandler` through the base Protocol, bypassing Server's override: that one parses
 * the request twice and rebuilds the whole result through its schema. A proxy passes results on as the
 * server sent them (the client validates what it receives), and tools/call is the gateway's hot path.
 */
export function rawRequestHandlerOf(server: Server): Server['setRequestHandler'] {
  const base = protocolSetRequestHandler();
  return ((schema: unknown, handler: unknown) => base.call(server, schema, handler)) as Server['setRequestHandler'];
}

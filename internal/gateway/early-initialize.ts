import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../shared/json.js';
import type { StdioServerLineTransport } from './stdio-server-transport.js';

// A client waits for `initialize` before anything else, and the SDK server that answers it loads every
// zod schema of the protocol first. So the stdio gateway answers a well-formed `initialize` from here,
// before that code is even compiled, and the server gets the same request when it connects (it learns the
// client's capabilities from it); its own answer is then not sent twice (docs/benchmarks.md).
// early-initialize.test.ts checks that this answer is the one the gateway's SDK server gives.

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (kept equal by the test). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** What the gateway's surface adapters declare, merged (mcp-gateway.ts; kept equal by the test). */
const GATEWAY_CAPABILITIES: JsonObject = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

export function gatewayInstructions(caller: string): string {
  return `The mcpd profile for caller "${caller}".`;
}

/** The answer to `message` when it is a well-formed initialize request; undefined for anything else. */
export function earlyInitializeAnswer(message: JSONRPCMessage, info: { caller: string; version: string }): string | undefined {
  const m = message as JsonObject;
  const result = initializeResult(message, info);
  if (result === undefined) return undefined;
  return `${JSON.stringify({ result, jsonrpc: '2.0', id: m.id as string | number })}\n`;
}

/** The result of a well-formed initialize request (as the SDK's Server words it); undefined for anything else. */
export function initializeResult(message: JSONRPCMessage, info: { caller: string; version: string }): JsonObject | undefined {
  const m = message as JsonObject;
  if (m.method !== 'initialize' || (typeof m.id !== 'string' && typeof m.id !== 'number') || !wellFormed(m.params)) return undefined;
  const requested = m.params.protocolVersion as string;
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
    capabilities: GATEWAY_CAPABILITIES,
    serverInfo: { name: 'mcpd', version: info.version },
    instructions: gatewayInstructions(info.caller),
  };
}

/**
 * Only what the SDK's InitializeRequestSchema surely accepts is answered here: anything else (a missing
 * clientInfo, a capability that is not an object) is left to the server, which answers it as it always has.
 */
function wellFormed(params: unknown): params is JsonObject {
  if (!isJsonObject(params) || typeof params.protocolVersion !== 'string') return false;
  const { capabilities, clientInfo } = params;
  if (!isJsonObject(capabilities) || !Object.values(capabilities).every(isJsonObject)) return false;
  return isJsonObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string';
}

/** `io.modelcontextprotocol/protocolVersion` (era2026/protocol.ts, not imported: this file stays small). */
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a stdio connection's first message makes it a 2026-07-28 one (docs/eras.md): `server/discover`,
 * or any request whose `params._meta` names a protocol version (the spec's per-request metadata; an
 * `initialize` that names one is a 2026 request too, refused as a removed method). Anything else — above
 * all `initialize` — is a 2025-11-25 session, as before.
 */
export function isModernFirstMessage(message: JSONRPCMessage | undefined): boolean {
  const m = message as JsonObject | undefined;
  if (!m || typeof m.method !== 'string' || m.id === undefined) return false;
  if (m.method === 'server/discover') return true;
  return isJsonObject(m.params) && isJsonObject(m.params._meta) && m.params._meta[META_PROTOCOL_VERSION] !== undefined;
}

/**
 * Starts reading stdin and answers the first message if it is a well-formed initialize (never one that
 * opens a 2026-07-28 connection). Resolves with the first message when it has arrived (undefined when
 * stdin ended first): then the gateway of its era is worth loading.
 */
export function answerInitializeEarly(
  transport: StdioServerLineTransport,
  info: { caller: string; version: string },
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<JSONRPCMessage | undefined> {
  return new Promise((resolve) => {
    let first = true;
    // Always false: every message also goes to the server when it connects (the replay above).
    transport.intercept = (message) => {
      if (first) {
        first = false;
        const answer = isModernFirstMessage(message) ? undefined : earlyInitializeAnswer(message, info);
        if (answer !== undefined) transport.answerEarly((message as { id: string | number }).id, answer);
        resolve(message);
      }
      return false;
    };
    stdin.once('end', () => resolve(undefined));
    transport.listen();
  });
}

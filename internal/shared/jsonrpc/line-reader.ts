import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter } from '../line-splitter.js';

const NEWLINE = 0x0a;
/** Longest line kept: a peer's message past it is refused whole, so memory stays bounded. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC from a byte stream: lines of up to MAX_LINE_BYTES, a longer one refused
 * (push throws). A drop-in for the SDK's ReadBuffer without its per-message zod parse (the SDK's
 * Protocol checks each message's shape again when it dispatches, so validating here too only doubled
 * the cost on the hot path): read lines with next(), parse them with parseJsonRpc.
 */
export function jsonRpcLines(): LineSplitter {
  return new LineSplitter({ maxLineBytes: MAX_LINE_BYTES, overLong: 'throw' });
}

/** True when `chunk` completes two or more lines: one read carrying several messages (WriteBatcher). */
export function severalLines(chunk: Buffer): boolean {
  const first = chunk.indexOf(NEWLINE);
  return first !== -1 && chunk.indexOf(NEWLINE, first + 1) !== -1;
}

export function parseJsonRpc(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    throw new Error(`not a JSON-RPC 2.0 message: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
  return value as JSONRPCMessage;
}

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const NEWLINE = 0x0a;
const MAX_BUFFER = 10 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC from a byte stream: a drop-in for the SDK's ReadBuffer without its
 * per-message zod parse (the SDK's Protocol checks each message's shape again when it dispatches,
 * so validating here too only doubled the cost on the hot path). Keeps a partial line between
 * chunks and copies only when one is pending.
 */
export class JsonRpcLineReader {
  private buffer: Buffer | undefined;

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > MAX_BUFFER) {
      this.clear();
      throw new Error(`a JSON-RPC line exceeded ${MAX_BUFFER} bytes without a newline`);
    }
    this.buffer = this.buffer && this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  /** The next complete message, or null; throws on a line that is not a JSON-RPC 2.0 message. */
  readMessage(): JSONRPCMessage | null {
    const line = this.readLine();
    return line === null ? null : parseJsonRpc(line);
  }

  /** The next complete line, unparsed (without its line end), or null. */
  readLine(): string | null {
    const buf = this.buffer;
    if (!buf) return null;
    const end = buf.indexOf(NEWLINE);
    if (end === -1) return null;
    const stop = end > 0 && buf[end - 1] === 0x0d ? end - 1 : end;
    const line = buf.toString('utf8', 0, stop);
    this.buffer = end + 1 < buf.length ? buf.subarray(end + 1) : undefined;
    return line;
  }

  clear(): void {
    this.buffer = undefined;
  }
}

export function parseJsonRpc(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    throw new Error(`not a JSON-RPC 2.0 message: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
  return value as JSONRPCMessage;
}

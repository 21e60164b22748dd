import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const NEWLINE = 0x0a;
/** Longest line kept: a peer's message past it is refused whole, so memory stays bounded. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
const MAX_BUFFER = MAX_LINE_BYTES;

/** True when `chunk` completes two or more lines: one read carrying several messages (holdWritesOfThisRead). */
export function severalLines(chunk: Buffer): boolean {
  const first = chunk.indexOf(NEWLINE);
  return first !== -1 && chunk.indexOf(NEWLINE, first + 1) !== -1;
}

/**
 * Newline-delimited JSON-RPC from a byte stream: a drop-in for the SDK's ReadBuffer without its
 * per-message zod parse (the SDK's Protocol checks each message's shape again when it dispatches,
 * so validating here too only doubled the cost on the hot path). Keeps a partial line between
 * chunks, joining them once when its newline arrives (per chunk would copy a long line quadratically).
 */
export class JsonRpcLineReader {
  /** Bytes that may hold complete lines. */
  private buffer: Buffer | undefined;
  /** False once a scan of `buffer` found no newline (until more bytes arrive with one). */
  private bufferNewline = false;
  /** Chunks not yet joined: a long line is joined once, when its newline arrives, not per chunk. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingNewline = false;

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + this.pendingBytes + chunk.length;
    if (size > MAX_BUFFER) {
      this.clear();
      throw new Error(`a JSON-RPC line exceeded ${MAX_BUFFER} bytes without a newline`);
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (chunk.indexOf(NEWLINE) !== -1) this.pendingNewline = true;
  }

  /** The next complete message, or null; throws on a line that is not a JSON-RPC 2.0 message. */
  readMessage(): JSONRPCMessage | null {
    const line = this.readLine();
    return line === null ? null : parseJsonRpc(line);
  }

  /** The next complete line, unparsed (without its line end), or null. */
  readLine(): string | null {
    if (this.pending.length > 0 && this.pendingNewline) this.join();
    const buf = this.buffer;
    if (!buf || !this.bufferNewline) return null;
    const end = buf.indexOf(NEWLINE);
    if (end === -1) {
      this.bufferNewline = false;
      return null;
    }
    const stop = end > 0 && buf[end - 1] === 0x0d ? end - 1 : end;
    const line = buf.toString('utf8', 0, stop);
    this.buffer = end + 1 < buf.length ? buf.subarray(end + 1) : undefined;
    return line;
  }

  clear(): void {
    this.buffer = undefined;
    this.bufferNewline = false;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingNewline = false;
  }

  private join(): void {
    const parts = this.buffer && this.buffer.length > 0 ? [this.buffer, ...this.pending] : this.pending;
    // The common case, one chunk holding whole lines, is taken as it is.
    this.buffer = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingNewline = false;
    this.bufferNewline = true;
  }
}

export function parseJsonRpc(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    throw new Error(`not a JSON-RPC 2.0 message: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
  return value as JSONRPCMessage;
}

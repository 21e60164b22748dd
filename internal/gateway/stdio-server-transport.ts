import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcLines, parseJsonRpc, severalLines } from '../shared/jsonrpc/line-reader.js';
import { withRawJson } from '../shared/jsonrpc/raw-json.js';
import { splitObjectMember } from '../shared/jsonrpc/split-response.js';
import { type TurnWrites, WriteBatcher } from '../shared/jsonrpc/turn-writes.js';
import { ProgressSpacing } from './progress-spacing.js';

type RequestId = string | number;

/** What a raw line is to the progress spacing: a request's progress, its answer, or neither. */
export type LineRole = { progressOf: RequestId } | { answerTo: RequestId } | undefined;

/**
 * The gateway's MCP stdio transport: the SDK's StdioServerTransport with our line reader (no second
 * schema parse per message on the hot path). stdout carries MCP only.
 */
export class StdioServerLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees each message first; true = handled, the SDK never gets it (the fast tools/call lane). */
  intercept?: (message: JSONRPCMessage) => boolean;
  private readonly reader = jsonRpcLines();
  private started = false;
  private listening = false;
  /** Messages read before the SDK server connected (early-initialize.ts); start() hands them over. */
  private readonly held: JSONRPCMessage[] = [];
  /** An initialize answered before the server connected: the server's answer to its replay is not sent. */
  private answeredEarly?: string | number;
  private readonly writes: TurnWrites;
  private readonly spacing = new ProgressSpacing();

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly batcher = new WriteBatcher(),
  ) {
    this.writes = batcher.writer(stdout);
  }

  private readonly onData = (chunk: Buffer): void => {
    try {
      this.reader.push(chunk);
    } catch (e) {
      this.onerror?.(e as Error);
      // close() is synchronous work in an async signature and cannot reject; the error was reported above.
      void this.close();
      return;
    }
    if (severalLines(chunk)) this.batcher.holdWritesOfThisRead();
    for (;;) {
      try {
        const line = this.reader.next();
        if (line === null) return;
        const message = this.intercept ? parseKeepingParams(line) : parseJsonRpc(line);
        const cancelled = cancelledRequest(message);
        if (cancelled !== undefined) this.spacing.forget(cancelled);
        if (this.intercept?.(message)) continue;
        if (this.started) this.onmessage?.(message);
        else this.held.push(message);
      } catch (e) {
        this.onerror?.(e as Error);
      }
    }
  };

  private readonly onStdinError = (e: Error): void => this.onerror?.(e);

  async start(): Promise<void> {
    if (this.started) throw new Error('the stdio transport is already started');
    this.started = true;
    // What arrived while the gateway was loading goes first, through the lane it would have taken.
    for (const message of this.held.splice(0)) if (!this.intercept?.(message)) this.onmessage?.(message);
    this.listen();
  }

  /** Reads stdin before start(): messages are held until the server connects (the gateway loads meanwhile). */
  listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
  }

  /** Answers `initialize` (request `id`) ahead of the server, which still gets the request to learn the client. */
  answerEarly(id: string | number, answer: string): void {
    this.answeredEarly = id;
    this.writeRaw(answer);
  }

  /** True (once) when request `id` is the initialize answered early: its answer is not to be sent again. */
  takeEarlyAnswer(id: string | number): boolean {
    if (this.answeredEarly !== id) return false;
    this.answeredEarly = undefined;
    return true;
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.reader.clear();
    this.onclose?.();
  }

  /** Writes bytes that already are one serialized message (with its newline); `role` for the progress spacing. */
  writeRaw(bytes: Buffer | string, role?: LineRole): boolean {
    return this.writes.write(this.spaced(bytes, role));
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.answeredEarly !== undefined && !('method' in message) && 'id' in message && message.id === this.answeredEarly) {
      this.answeredEarly = undefined;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      // As the SDK's serializeMessage, which this file does not import: its module loads every zod schema.
      if (this.writeRaw(`${JSON.stringify(message)}\n`, roleOf(message, options))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private spaced(bytes: Buffer | string, role: LineRole): Buffer | string {
    if (role === undefined) return this.spacing.other(bytes);
    if ('progressOf' in role) {
      this.spacing.progress(role.progressOf, bytes);
      return bytes;
    }
    return this.spacing.answer(role.answerTo, bytes);
  }
}

/** A progress notification sent for a request (the SDK names it in relatedRequestId), or an answer. */
function roleOf(message: JSONRPCMessage, options: TransportSendOptions | undefined): LineRole {
  if ('method' in message) {
    const related = options?.relatedRequestId;
    return message.method === 'notifications/progress' && !('id' in message) && related !== undefined ? { progressOf: related } : undefined;
  }
  return 'id' in message && message.id !== undefined ? { answerTo: message.id } : undefined;
}

function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * A tools/call keeps its params' text (raw-json.ts), so the fast lane sends it to the core as received
 * instead of serialising the arguments again; anything else is parsed as usual.
 */
function parseKeepingParams(line: string): JSONRPCMessage {
  if (!line.includes('"tools/call"')) return parseJsonRpc(line);
  const split = splitObjectMember(line, 'params');
  if (!split || split.envelope.jsonrpc !== '2.0') return parseJsonRpc(line);
  split.envelope.params = withRawJson(split.value, split.valueText);
  return split.envelope as unknown as JSONRPCMessage;
}

import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** What the bridge accepts from one app: messages of at most this many characters (as JSON)… */
const MAX_MESSAGE_CHARS = 512 * 1024;
/** …and this many in a burst, refilled at RATE_PER_SECOND (an app's tool calls, logs and resizes fit easily). */
const BURST = 100;
const RATE_PER_SECOND = 50;

/**
 * The AppBridge's postMessage transport for one sandboxed app frame, with limits: only messages from that
 * frame's window, only JSON-RPC 2.0 objects, none larger than MAX_MESSAGE_CHARS and no more than the rate
 * allows. An app past a limit is cut off (`onViolation`: the page removes its frame and says why) instead
 * of keeping the dashboard busy; malformed messages are dropped, as the MCP Apps spec asks of hosts.
 */
export class GuardedFrameTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private tokens = BURST;
  private last = performance.now();
  private closed = false;

  constructor(
    private readonly frame: () => Window | null,
    private readonly onViolation: (why: string) => void,
  ) {}

  async start(): Promise<void> {
    window.addEventListener('message', this.listener);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    // The frame is sandboxed without allow-same-origin: its origin is opaque ("null"), so "*" is the only target.
    this.frame()?.postMessage(message, '*');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    window.removeEventListener('message', this.listener);
    this.onclose?.();
  }

  private readonly listener = (e: MessageEvent): void => {
    if (this.closed || e.source === null || e.source !== this.frame()) return;
    if (!this.take()) return this.violate(`the app sent more than ${RATE_PER_SECOND} messages a second (a burst of ${BURST} at most)`);
    const size = jsonSize(e.data);
    if (size > MAX_MESSAGE_CHARS)
      return this.violate(
        `the app sent a message of ${size === Infinity ? 'unmeasurable' : size} characters; the limit is ${MAX_MESSAGE_CHARS}`,
      );
    if (!isJsonRpc(e.data)) return; // not MCP: dropped
    this.onmessage?.(e.data);
  };

  private take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.last) / 1000) * RATE_PER_SECOND);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private violate(why: string): void {
    void this.close(); // not awaited: it only removes the listener, and cannot fail
    this.onViolation(why);
  }
}

/** The message's size as JSON; Infinity when it cannot be serialized (cycles, BigInt). */
function jsonSize(data: unknown): number {
  try {
    return JSON.stringify(data)?.length ?? 0;
  } catch {
    return Infinity;
  }
}

function isJsonRpc(data: unknown): data is JSONRPCMessage {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && (data as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

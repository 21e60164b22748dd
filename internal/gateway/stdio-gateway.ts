import type { GatewayOptions } from './adapter-host.js';
import { FastToolCalls } from './fast-tool-calls.js';
import { McpDispatcher } from './mcp-dispatcher.js';
import type { StdioServerLineTransport } from './stdio-server-transport.js';

/**
 * `mcpdmcp` on stdio: one MCP session served by the gateway's one dispatcher (mcp-dispatcher.ts), with
 * what only stdio has: `initialize` was answered before this loaded (early-initialize.ts), and
 * `tools/call` takes the fast lane, which passes results through as bytes (fast-tool-calls.ts). Neither
 * the SDK's Server nor its protocol schemas are loaded (docs/benchmarks.md, "Start-up").
 */
export class StdioGateway {
  /** Called when stdin closes: the session is over. */
  onclose?: () => void;
  /** The session's MCP side (what the adapters see of the client). */
  readonly dispatcher: McpDispatcher;

  constructor(
    opts: GatewayOptions,
    private readonly transport: StdioServerLineTransport,
  ) {
    this.dispatcher = new McpDispatcher(opts, {
      // Answered early (before this loaded) unless it was not the first message: then once, now.
      answerInitialize: (id, result) => {
        if (!transport.takeEarlyAnswer(id)) transport.writeRaw(`${JSON.stringify({ result, jsonrpc: '2.0', id })}\n`);
      },
    });
    this.dispatcher.onclose = () => this.onclose?.();
  }

  /** Takes over the transport (with what it held while this loaded) and connects to the core. */
  async start(): Promise<void> {
    const link = this.dispatcher.host.link;
    const fast = new FastToolCalls({
      session: () => link.session(this.dispatcher.host.coreWaitMs),
      liveSession: () => link.live(),
      write: (b, role) => {
        this.transport.writeRaw(b, role);
      },
    });
    this.transport.intercept = (m) => fast.offer(m);
    await this.dispatcher.connect(this.transport);
    link.warm();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { toBridgeError } from '../../contract/desktop-bridge/errors.js';
import type { BridgeHost } from '../host.js';
import type { CallContext } from '../execution.js';
import type { InputPlace } from '../../contract/desktop-bridge/types.js';
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import { describeAction, paramsFor, TOOL_METHODS, TOOLS } from './mcp-tools.js';
import { pinTarget } from './pin-target.js';
import { MAX_TOKEN_TTL_MS } from '../domain/confirm-tokens.js';
import { renderWindows, WINDOWS } from './window-resources.js';

export interface McpFaceOptions {
  pollMs: number;
  log: (msg: string) => void;
  onClose: () => void;
  workspacePath?: string;
  timeoutMs?: number;
}

const TOOL_TIMEOUT_MS = 120_000;
const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * The host as an MCP server: window:// resources describing the real desktop (re-read every pollMs;
 * `resources/updated` for each subscribed window whose text changed) and tools. A side effect first asks
 * the user through elicitation and only then obtains and spends a confirm token; a client that cannot
 * elicit is refused.
 */
export class DesktopMcpFace {
  readonly server: Server;
  private readonly ctx: CallContext = { connectionId: `mcp-stdio-${randomUUID()}`, peerPid: process.ppid };
  private texts = new Map<string, string>();
  private readonly subscribed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly host: BridgeHost,
    private readonly opts: McpFaceOptions,
    private readonly workspacePath: string,
  ) {
    this.server = new Server(
      { name: 'mcpd-desktop-host', version: '0.1.0' },
      { capabilities: { tools: {}, resources: { subscribe: true } } },
    );
    this.register();
  }

  start(): void {
    // Reading the desktop costs a tree walk: poll only while somebody listens for updates.
    // refresh() does not reject (see it below); a poll that overlaps one in progress joins it.
    this.timer = setInterval(() => void (this.subscribed.size > 0 && this.refresh()), this.opts.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Whether the desktop is polled, said on every (un)subscribe: an operator (and a test) can see it stop. */
  private logSubscriptions(): void {
    const n = this.subscribed.size;
    this.opts.log(`window subscriptions: ${n} (${n > 0 ? `polling every ${this.opts.pollMs} ms` : 'not polling'})`);
  }

  /** One desktop read; changed windows that a client subscribed to are announced. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        await this.publish(await this.render());
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** The windows' texts; when the desktop cannot be read, each window says why (an agent sees it, not silence). */
  private async render(): Promise<Map<string, string>> {
    try {
      return await renderWindows(this.host.backend, Date.now);
    } catch (e) {
      const why = `desktop not readable: ${(e as Error).message}`;
      this.opts.log(why);
      return new Map(WINDOWS.map((w) => [w.uri, `${why}; call desktop_observe or run desktop.doctor for what is missing`]));
    }
  }

  private async publish(next: Map<string, string>): Promise<void> {
    const changed = [...next].filter(([uri, text]) => this.texts.get(uri) !== text).map(([uri]) => uri);
    this.texts = next;
    // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
    for (const uri of changed) if (this.subscribed.has(uri)) await this.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  private register(): void {
    const s = this.server;
    s.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: WINDOWS.map((w) => ({ uri: w.uri, name: w.name, description: w.description, mimeType: 'text/plain' })),
    }));
    s.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      const w = WINDOWS.find((x) => x.uri === req.params.uri);
      if (!w)
        throw new McpError(
          ErrorCode.InvalidParams,
          `unknown resource ${req.params.uri}; the host serves ${WINDOWS.map((x) => x.uri).join(', ')}`,
        );
      if (!this.texts.has(w.uri) || this.subscribed.size === 0) await this.refresh();
      return { contents: [{ uri: w.uri, mimeType: 'text/plain', text: this.texts.get(w.uri) ?? '' }] };
    });
    s.setRequestHandler(SubscribeRequestSchema, async (req) => {
      this.subscribed.add(req.params.uri);
      this.logSubscriptions();
      return {};
    });
    s.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      this.subscribed.delete(req.params.uri);
      this.logSubscriptions();
      return {};
    });
    s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((t) => ({ ...t })) }));
    s.setRequestHandler(CallToolRequestSchema, (req, extra) =>
      this.callTool(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, extra.signal),
    );
  }

  /**
   * `signal` aborts when the MCP client cancels the call (or the session ends): an open question is withdrawn,
   * an execution stops as an abort would, and an answer that comes after the cancel acts on nothing.
   */
  private async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const spec = TOOL_METHODS[name];
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    const ctx: CallContext = { ...this.ctx, signal: cancelledBy(signal) };
    const meta = () => ({
      schemaVersion: 1,
      requestId: randomUUID(),
      workspacePath: this.workspacePath,
      timeoutMs: this.opts.timeoutMs ?? TOOL_TIMEOUT_MS,
    });
    try {
      let params = paramsFor(name, args);
      let confirm: Record<string, unknown> | undefined;
      if (spec.sideEffect) {
        // The user is shown where the input will go, and the action is held to exactly that place.
        const pinned = await pinTarget(this.host, params, (selector) =>
          this.host.handle('desktop.find', { route: params.route, selector, meta: meta() }, ctx),
        );
        params = pinned.params;
        const refusal = await this.ask(name, params, pinned.place, signal);
        if (refusal) return errorResult(refusal);
        if (signal.aborted) return errorResult(`refused: the call was cancelled while the user was asked, so ${name} did not run`);
        // The token lives as long as the call may: the desk runs one input at a time, so an approved action can
        // wait behind another caller's long typing, and the user's yes must not expire in that queue.
        const ttlMs = Math.min(MAX_TOKEN_TTL_MS, this.opts.timeoutMs ?? TOOL_TIMEOUT_MS);
        const issued = await this.host.handle(
          'desktop.confirm.issue',
          { meta: meta(), intent: { method: spec.method, params }, ttlMs },
          ctx,
        );
        confirm = { token: issued.token, approver: 'user (MCP elicitation)', approvedAt: new Date().toISOString() };
      }
      const result = await this.host.handle(spec.method, { ...params, meta: meta(), ...(confirm ? { confirm } : {}) }, ctx);
      // refresh() turns an unreadable desktop into window text and drops notices to gone clients: it does not reject, and the result need not wait for it.
      void this.refresh();
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
    } catch (e) {
      const err = toBridgeError(e).toBody();
      return { ...errorResult(`${err.code}: ${err.message}`), structuredContent: { error: err } };
    }
  }

  /** Undefined when the user accepted; otherwise why the action was refused. A cancel withdraws the question. */
  private async ask(tool: string, params: Record<string, unknown>, place: InputPlace, signal: AbortSignal): Promise<string | undefined> {
    if (!this.server.getClientCapabilities()?.elicitation)
      return `refused: ${tool} changes the desktop and needs the user's consent, but this MCP client does not support elicitation`;
    const question = describeAction(tool, params, place);
    try {
      const answer = await this.server.elicitInput(
        {
          message: question,
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow this desktop action', description: question } },
            required: ['allow'],
          },
        },
        { signal },
      );
      if (answer.action === 'accept' && answer.content?.allow === true) return undefined;
      return `refused: the user did not allow ${tool} (${answer.action}${answer.action === 'accept' ? ', allow was not true' : ''})`;
    } catch (e) {
      return `refused: asking the user failed (${(e as Error).message}), so ${tool} did not run`;
    }
  }
}

/** The MCP call's signal as the host's caller signal: its reason says the client cancelled. */
function cancelledBy(signal: AbortSignal): AbortSignal {
  const c = new AbortController();
  const stop = () => c.abort(new BridgeError('DESKTOP_ABORTED', 'the MCP client cancelled the call'));
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return c.signal;
}

/** Runs the MCP face on stdio; resolves with a function that stops it. */
export async function serveMcp(host: BridgeHost, opts: McpFaceOptions & { workspaceRoot: string }): Promise<() => Promise<void>> {
  const face = new DesktopMcpFace(host, opts, opts.workspacePath ?? opts.workspaceRoot);
  const transport = new StdioServerTransport();
  transport.onclose = opts.onClose;
  process.stdin.on('end', opts.onClose);
  await face.server.connect(transport);
  face.start();
  return async () => {
    face.stop();
    await face.server.close();
  };
}

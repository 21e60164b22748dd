import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as z from 'zod';
import type { CallDone, DownstreamSession, RequestOptions, StartedCall } from '../../../contract/model/downstream.js';
import { viaPromise } from '../../domain/call-adapters.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { mapRequestError } from './error-map.js';
import { DEFAULT_LIST_GUARDS, listAllTools, type ListGuards } from './list-tools.js';
import { ProcessStdioTransport } from './stdio-transport.js';
import { timerDelay } from '../../../shared/timer-limit.js';
import type { ProtocolEra } from './era-probe.js';
import { ModernListens } from './modern-listens.js';
import { isTaskRequest, modernTaskRequest } from './modern-task-request.js';

/** Results stay opaque: validate only that they are objects, keep every field. */
const RawResult = z.looseObject({});
const BUFFER_LIMIT = 200;
/** How SDK v2's input-required driver words the progress it reports for each round (not the server's). */
const MRTR_ROUND_PROGRESS = 'Fulfilling input required by ';

/** SDK v1's client for 2025-11-25 servers, SDK v2's for 2026-07-28 ones (decision in docs/decisions.md). */
export type SessionClient = { era: 'legacy'; client: Client } | { era: 'modern'; client: ModernClient };

export interface SessionOptions {
  serverName: string;
  sdk: SessionClient;
  transport: Transport;
  /** Timeout of each tools/list page. */
  listTimeoutMs: number;
  graceMs: number;
  guards?: ListGuards;
}

/** A connected MCP client session to one downstream server instance. */
export class McpSession implements DownstreamSession {
  private readonly notifyHandlers: ((method: string, params: JsonObject) => void)[] = [];
  private readonly stderrHandlers: ((line: string) => void)[] = [];
  private readonly closeHandlers: ((err?: Error) => void)[] = [];
  // Lines and notifications that arrive before anyone listens (during the handshake) are kept.
  private pendingStderr: string[] = [];
  private pendingNotifications: [string, JsonObject][] = [];
  private endedWhy?: string;
  private closeErr?: Error;
  private closing = false;
  private failWhy?: string;

  /** A 2026 server's subscriptions/listen streams (absent for 2025 sessions, which push notifications). */
  private readonly listens?: ModernListens;
  /** The list-changes listen stream is open (or a 2025 session, whose notifications need none). */
  private listening: boolean;

  constructor(private readonly opts: SessionOptions) {
    if (opts.sdk.era === 'modern') {
      this.listens = new ModernListens(opts.sdk.client, {
        alive: () => !this.closing && this.endedWhy === undefined,
        notify: (method, params) => this.notify(method, params),
        log: (line) => this.stderrLine(line),
        hearing: (on) => (this.listening = on),
      });
    }
    this.listening = opts.sdk.era === 'legacy';
    const client = opts.sdk.client;
    client.fallbackNotificationHandler = async (n) => this.notify(n.method, (n.params ?? {}) as JsonObject);
    client.onclose = () => this.ended();
  }

  get capabilities(): JsonObject {
    return (this.opts.sdk.client.getServerCapabilities() ?? {}) as JsonObject;
  }

  get serverInfo(): JsonObject {
    return (this.opts.sdk.client.getServerVersion() ?? {}) as JsonObject;
  }

  /** `modern` = 2026-07-28 (decided by server/discover), `legacy` = a 2025-11-25 session. */
  get era(): ProtocolEra {
    return this.opts.sdk.era;
  }

  /** The protocol version the session negotiated (`2026-07-28`, `2025-11-25` …). */
  get protocolVersion(): string | undefined {
    const sdk = this.opts.sdk;
    if (sdk.era === 'modern') return sdk.client.getNegotiatedProtocolVersion();
    // SDK v1 keeps the initialize result's version only on its transport (setProtocolVersion).
    return (this.opts.transport as { protocolVersion?: string }).protocolVersion;
  }

  /**
   * The stdio server's transport where requests may be written straight to it (the direct lane, decision
   * 17). Only 2025 sessions: a 2026 request carries the per-request `_meta` envelope and may be answered
   * with an InputRequiredResult, both of which the SDK v2 client handles.
   */
  private get directLane(): ProcessStdioTransport | undefined {
    const t = this.opts.transport;
    return this.opts.sdk.era === 'legacy' && t instanceof ProcessStdioTransport ? t : undefined;
  }

  /**
   * After the handshake: a 2026 server's list changes come on a subscriptions/listen stream, which the
   * core opens here. A server that refuses it still serves calls; its lists then go by their TTL alone
   * (list-freshness.ts: a ttlMs of 0 is then stale at once), and its log lines say why. A stream the
   * server ends later is opened again (modern-listens.ts); until then the session does not hear changes.
   */
  async listen(): Promise<void> {
    try {
      await this.listens?.start(this.capabilities);
    } catch (err) {
      this.stderrLine(`[mcpd] subscriptions/listen for list changes failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** See DownstreamSession.hearsListChanges: the metadata cache's freshness rule needs it (list-freshness.ts). */
  get hearsListChanges(): boolean {
    return this.listening;
  }

  get pid(): number | undefined {
    return this.opts.transport instanceof ProcessStdioTransport ? this.opts.transport.pid : undefined;
  }

  get closed(): boolean {
    return this.endedWhy !== undefined;
  }

  listTools(opts: { signal?: AbortSignal; onPage?: (params: JsonObject, page: JsonObject) => void } = {}): Promise<DownstreamTool[]> {
    // A server that does not declare `tools` (mcpd-docs serves only resources) has none: asking would
    // only earn "Method not found" and report a healthy server as failing.
    const tools = this.capabilities.tools;
    if (tools === undefined || tools === null || typeof tools !== 'object') return Promise.resolve([]);
    const fetchPage = async (cursor: string | undefined) => {
      const params: JsonObject = cursor === undefined ? {} : { cursor };
      const page = await this.request('tools/list', params, { timeoutMs: this.opts.listTimeoutMs, signal: opts.signal });
      opts.onPage?.(params, page);
      return page;
    };
    return listAllTools(this.opts.serverName, fetchPage, this.opts.guards ?? DEFAULT_LIST_GUARDS);
  }

  callTool(name: string, args: JsonObject, opts: RequestOptions): Promise<JsonObject> {
    return this.request('tools/call', { name, arguments: args, ...opts.taskParams }, opts);
  }

  /**
   * A tool call with a completion callback. A 2025 stdio session writes it straight to the server (the
   * direct lane, no promise); any other session runs it as `request` and reports the promise's end.
   */
  toolCall(name: string, args: JsonObject, opts: RequestOptions, done: CallDone): StartedCall {
    const t = this.directLane;
    if (!t || this.endedWhy !== undefined || opts.timeoutMs <= 0)
      return viaPromise((signal) => this.callTool(name, args, { ...opts, signal }), done);
    let cancelled = false;
    const call = t.direct.start('tools/call', { name, arguments: args, ...opts.taskParams }, opts, {
      result: (r) => done.result(r),
      error: (err) => {
        const ctx = {
          server: this.opts.serverName,
          method: 'tools/call',
          timeoutMs: opts.deadlineMs ?? opts.timeoutMs,
          cancelled,
          ended: this.endedWhy,
        };
        done.error(mapRequestError(err, ctx));
      },
    });
    return {
      cancel: (err) => {
        cancelled = true;
        call.cancel(err);
      },
    };
  }

  async request(method: string, params: JsonObject, opts: RequestOptions): Promise<JsonObject> {
    const ctx = { server: this.opts.serverName, method, timeoutMs: opts.deadlineMs ?? opts.timeoutMs, signal: opts.signal };
    if (this.endedWhy !== undefined) throw mapRequestError(new Error('ended'), { ...ctx, ended: this.endedWhy });
    if (opts.signal?.aborted) throw mapRequestError(new Error('aborted'), ctx);
    if (opts.timeoutMs <= 0) {
      throw new McpdError('DEADLINE_EXCEEDED', `no time left to send ${method} to server ${this.opts.serverName}`);
    }
    const onProgress = opts.onProgress;
    const t = this.directLane;
    try {
      if (t) return await t.direct.request(method, params, opts);
      const routed = this.listens?.route(method, params);
      if (routed) return await routed;
      const sdkOpts = {
        timeout: timerDelay(opts.timeoutMs),
        signal: opts.signal,
        resetTimeoutOnProgress: false,
        onprogress: onProgress
          ? (p: { progress: number; total?: number; message?: string }) => {
              // SDK v2 reports its own MRTR rounds as progress on the same callback; they are not the
              // server's, and their numbers would break the monotonic progress the caller is promised.
              if (this.opts.sdk.era === 'modern' && p.total === undefined && p.message?.startsWith(MRTR_ROUND_PROGRESS)) return;
              onProgress({ progress: p.progress, total: p.total, message: p.message });
            }
          : undefined,
      };
      const sdk = this.opts.sdk;
      // A 2026 server's own task (SEP-2663) is asked for, and answered, past what SDK v2's request accepts.
      const result =
        sdk.era === 'modern'
          ? isTaskRequest(method, opts.taskParams)
            ? await modernTaskRequest(sdk.client, method, params, RawResult, sdkOpts)
            : await sdk.client.request({ method, params }, RawResult, sdkOpts)
          : await sdk.client.request({ method, params }, RawResult, sdkOpts);
      return result as JsonObject;
    } catch (err) {
      const mapped = mapRequestError(err, { ...ctx, ended: this.endedWhy });
      if (mapped.reason === 'UNAVAILABLE' && !this.closed && !(this.opts.transport instanceof ProcessStdioTransport)) {
        // An HTTP peer that stopped answering (or forgot our session) is dead to us: end the
        // session so the pool replaces it with a fresh connection and handshake.
        this.failWhy = (err as Error)?.message ?? String(err);
        // Ignored: the session is already ending; close only releases the transport.
        void this.opts.sdk.client.close().catch(() => {});
      }
      throw mapped;
    }
  }

  async sendNotification(method: string, params: JsonObject): Promise<void> {
    if (this.endedWhy !== undefined) return;
    await this.opts.sdk.client.notification({ method, params });
  }

  onNotification(handler: (method: string, params: JsonObject) => void): void {
    this.notifyHandlers.push(handler);
    const pending = this.pendingNotifications;
    this.pendingNotifications = [];
    for (const [m, p] of pending) handler(m, p);
  }

  onStderr(handler: (line: string) => void): void {
    this.stderrHandlers.push(handler);
    const pending = this.pendingStderr;
    this.pendingStderr = [];
    for (const line of pending) handler(line);
  }

  onClose(handler: (err?: Error) => void): void {
    if (this.endedWhy !== undefined) queueMicrotask(() => handler(this.closeErr));
    else this.closeHandlers.push(handler);
  }

  async close(graceMs = this.opts.graceMs): Promise<void> {
    this.closing = true;
    const t = this.opts.transport;
    if (t instanceof ProcessStdioTransport) await t.stop(graceMs);
    // Ignored: the session is already ending; close only releases the transport.
    await this.opts.sdk.client.close().catch(() => {});
    this.ended();
  }

  /** Feeds a stderr line from the transport. */
  stderrLine(line: string): void {
    if (this.stderrHandlers.length === 0) {
      if (this.pendingStderr.length < BUFFER_LIMIT) this.pendingStderr.push(line);
      return;
    }
    for (const h of this.stderrHandlers) h(line);
  }

  private notify(method: string, params: JsonObject): void {
    if (this.notifyHandlers.length === 0) {
      if (this.pendingNotifications.length < BUFFER_LIMIT) this.pendingNotifications.push([method, params]);
      return;
    }
    for (const h of this.notifyHandlers) h(method, params);
  }

  private ended(): void {
    if (this.endedWhy !== undefined) return;
    const t = this.opts.transport;
    const exit = t instanceof ProcessStdioTransport && t.exitInfo ? t.describeExit() : undefined;
    const fatal = t instanceof ProcessStdioTransport ? t.fatalReason : undefined;
    this.endedWhy = fatal
      ? `was stopped because ${fatal}`
      : this.closing
        ? 'was stopped'
        : exit
          ? `exited (${exit})`
          : this.failWhy
            ? `connection failed (${this.failWhy})`
            : 'closed its connection';
    if (!this.closing) this.closeErr = new Error(`server ${this.opts.serverName} ${this.endedWhy}`);
    // Fire and forget: stopping ends the streams' retries at once; closing them is best effort on a gone client.
    void this.listens?.stop();
    const handlers = this.closeHandlers.splice(0);
    for (const h of handlers) h(this.closeErr);
  }
}

/**
 * The SMCP Agent client: connect (API key header), join an office, query computers through the Server, call
 * tools with cancellation on timeout, and re-join the office after every reconnect (the reference SDKs lose
 * their office on reconnect). Failed requests throw SmcpError with the protocol code; tool calls never throw
 * for a remote failure — they return an `isError` CallToolResult, as the protocol's tool-call flow does.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { io, type Socket } from 'socket.io-client';
import { errorPayload, isErrorPayload, parseJoinFailure, SMCP_CODES } from '../../contract/smcp/error-codes.js';
import { API_KEY_HEADER, CLIENT_EVENTS, DEFAULT_ROUTE_TIMEOUT_MS, SERVER_EVENTS, SMCP_NAMESPACE } from '../../contract/smcp/events.js';
import type {
  CallToolResult,
  Desktop,
  GetComputerConfigRet,
  GetDeskTopRet,
  GetFinderRet,
  GetToolsRet,
  FindComputerRet,
  ListRoomRet,
  ReadResourceRet,
  SessionInfo,
  SMCPTool,
} from '../../contract/smcp/types.js';
import type { JsonObject } from '../../shared/json.js';
import { backoffDelayMs, type Backoff } from '../../shared/backoff.js';
import { SmcpError } from './smcp-error.js';
import type { NotifyPayloads, RefreshEvents } from './notify-types.js';
import { wireRefresh } from './agent-refresh.js';
import { RejoinGate } from './rejoin-gate.js';
import { requestAnswer } from './request-answer.js';
import { toolCallError } from './tool-call-error.js';

/** Re-joining while the Server still holds our old seat: 250 ms doubling to 5 s, in step (one agent, one seat). */
const REJOIN: Backoff = { baseMs: 250, maxMs: 5000, jitter: 0 };

export interface SmcpAgentOptions {
  /** The Server's base URL, e.g. http://127.0.0.1:7800 (the /smcp namespace is added). */
  url: string;
  /** This agent's name: the `agent` field of every request. */
  name: string;
  apiKey?: string;
  /** Office to join once connected (and again after every reconnect). */
  office?: string;
  /** Fetch tools/desktop/finder/config again when a notify:* says they changed (default true). */
  autoRefresh?: boolean;
  /** Extra time over a request's own timeout before the agent gives up locally (default 2 s). */
  graceMs?: number;
}

export interface FinderQuery {
  keywords?: string[];
  fileType?: string;
  offset?: number;
  limit?: number;
}

export class SmcpAgent {
  readonly name: string;
  private readonly socket: Socket;
  private readonly events = new EventEmitter();
  private readonly graceMs: number;
  private currentOffice: string | undefined;
  private closed = false;
  private readonly gate = new RejoinGate();

  private constructor(o: SmcpAgentOptions) {
    this.name = o.name;
    this.graceMs = o.graceMs ?? 2000;
    this.currentOffice = o.office;
    const extraHeaders: Record<string, string> = {};
    if (o.apiKey) extraHeaders[API_KEY_HEADER] = o.apiKey;
    this.socket = io(`${o.url.replace(/\/+$/, '')}${SMCP_NAMESPACE}`, {
      transports: ['websocket'],
      extraHeaders,
      autoConnect: false,
      reconnectionDelayMax: 5000,
    });
    // A listener keeps an 'error' emission from crashing the process.
    this.events.on('error', () => undefined);
    if (o.autoRefresh ?? true) wireRefresh(this);
    // Every `connect` after the first is a reconnect with a new sid the Server knows nothing about.
    let connects = 0;
    this.socket.on('connect', () => {
      // rejoin() reports its failures as refresh events and does not reject; the connect handler cannot wait.
      if (connects++ > 0) void this.rejoin().finally(() => this.gate.release());
    });
    // Requests made from now on wait for the re-join: sent before it, the Server would not know us yet.
    this.socket.on('disconnect', () => {
      if (this.socket.active && this.currentOffice) this.gate.hold();
    });
  }

  /** Connects, and joins `office` if given. Rejects with the Server's reason (e.g. a wrong API key). */
  static async connect(o: SmcpAgentOptions): Promise<SmcpAgent> {
    const agent = new SmcpAgent(o);
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error): void => {
        agent.socket.off('connect', onConnect);
        agent.socket.disconnect();
        // The Server's middleware refusals carry their reason; anything else is a transport failure.
        const refused = /^unauthorized/.test(e.message);
        reject(
          refused
            ? new SmcpError(errorPayload(SMCP_CODES.unauthorized, `cannot connect to ${o.url}: ${e.message}`))
            : new Error(`cannot connect to ${o.url}: ${e.message} (is an SMCP Server listening there?)`),
        );
      };
      // Only the first attempt decides; later connect errors are reconnection attempts.
      const onConnect = (): void => {
        agent.socket.off('connect_error', onError);
        resolve();
      };
      agent.socket.once('connect', onConnect);
      agent.socket.once('connect_error', onError);
      agent.socket.connect();
    });
    if (o.office) await agent.joinOffice(o.office);
    return agent;
  }

  get office(): string | undefined {
    return this.currentOffice;
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** The underlying socket id (changes on reconnect). */
  get sid(): string | undefined {
    return this.socket.id;
  }

  async joinOffice(office: string): Promise<void> {
    const [ok, msg] = await this.officeCall(SERVER_EVENTS.joinOffice, { role: 'agent', name: this.name, office_id: office });
    if (!ok) throw new SmcpError(parseJoinFailure(msg ?? 'join refused'));
    this.currentOffice = office;
  }

  async leaveOffice(): Promise<void> {
    const office = this.requireOffice();
    const [ok, msg] = await this.officeCall(SERVER_EVENTS.leaveOffice, { office_id: office });
    if (!ok) throw new SmcpError(parseJoinFailure(msg ?? 'leave refused'));
    this.currentOffice = undefined;
  }

  async listRoom(): Promise<SessionInfo[]> {
    const office = this.requireOffice();
    const r = await this.request<ListRoomRet>(SERVER_EVENTS.listRoom, { office_id: office });
    return r.sessions;
  }

  /**
   * The offices holding a computer of this name (`server:find_computer`, an mcpd-smcp extension; a
   * Server without it does not answer, or acks it empty, and this fails with a 408).
   */
  async findComputer(computer: string, timeoutMs = 5000): Promise<string[]> {
    return (await this.request<FindComputerRet>(SERVER_EVENTS.findComputer, { computer }, { timeoutMs })).offices;
  }

  async getTools(computer: string): Promise<SMCPTool[]> {
    return (await this.request<GetToolsRet>(CLIENT_EVENTS.getTools, { computer })).tools;
  }

  async getDesktop(computer: string, o: { desktopSize?: number; window?: string } = {}): Promise<Desktop[]> {
    const extra: JsonObject = { computer };
    if (o.desktopSize !== undefined) extra.desktop_size = o.desktopSize;
    if (o.window !== undefined) extra.window = o.window;
    return (await this.request<GetDeskTopRet>(CLIENT_EVENTS.getDesktop, extra)).desktops;
  }

  async getFinder(computer: string, q: FinderQuery = {}): Promise<GetFinderRet> {
    const extra: JsonObject = { computer };
    if (q.keywords !== undefined) extra.keywords = q.keywords;
    if (q.fileType !== undefined) extra.file_type = q.fileType;
    if (q.offset !== undefined) extra.offset = q.offset;
    if (q.limit !== undefined) extra.limit = q.limit;
    return this.request<GetFinderRet>(CLIENT_EVENTS.getFinder, extra);
  }

  async getConfig(computer: string): Promise<GetComputerConfigRet> {
    return this.request<GetComputerConfigRet>(CLIENT_EVENTS.getConfig, { computer }, { checkReqId: false });
  }

  /** `client:read_resource` (our extension): the MCP ReadResourceResult of `uri` on that computer. */
  async readResource(computer: string, uri: string): Promise<ReadResourceRet> {
    return this.request<ReadResourceRet>(CLIENT_EVENTS.readResource, { computer, uri }, { checkReqId: false });
  }

  /** The Finder guide's navigation helpers, each a read of the derived dpe:// URI. */
  readDocumentMetadata(computer: string, uri: string): Promise<ReadResourceRet> {
    return this.readResource(computer, uri);
  }

  readDocumentPages(computer: string, uri: string, offset = 0, limit = 20): Promise<ReadResourceRet> {
    return this.readResource(computer, `${uri}?depth=pages&offset=${offset}&limit=${limit}`);
  }

  readPage(computer: string, uri: string, pageIndex: number, format: 'json' | 'markdown' | 'text' = 'json'): Promise<ReadResourceRet> {
    return this.readResource(computer, `${uri}/pages/${pageIndex}?format=${format}`);
  }

  readElement(computer: string, uri: string, elementId: string): Promise<ReadResourceRet> {
    return this.readResource(computer, `${uri}/elements/${encodeURIComponent(elementId)}`);
  }

  /**
   * Calls a tool. On timeout (the Server's 408 or our own clock) it sends `server:tool_call_cancel` and returns
   * an error result; any other failure is an error result carrying the ErrorPayload in `_meta.a2c_error`.
   */
  async callTool(
    computer: string,
    toolName: string,
    params: JsonObject = {},
    o: { timeoutSeconds?: number; reqId?: string } = {},
  ): Promise<CallToolResult> {
    const timeout = o.timeoutSeconds ?? 60;
    const req_id = o.reqId ?? randomUUID().replace(/-/g, '');
    const payload = { agent: this.name, req_id, computer, tool_name: toolName, params, timeout };
    let answer: unknown;
    if (!(await this.gate.wait(timeout * 1000)))
      return toolCallError(errorPayload(SMCP_CODES.timeout, `not connected again within ${timeout} s`), req_id);
    try {
      answer = await this.socket.timeout(timeout * 1000 + this.graceMs).emitWithAck(CLIENT_EVENTS.toolCall, payload);
    } catch {
      answer = errorPayload(SMCP_CODES.timeout, `no answer within ${timeout} s`);
    }
    if (isErrorPayload(answer)) {
      if (answer.code === SMCP_CODES.timeout) this.cancel(req_id);
      return toolCallError(answer, req_id);
    }
    return answer as CallToolResult;
  }

  /** Asks the computer to cancel a call of ours (fire-and-forget, as the protocol defines). */
  cancel(reqId: string): void {
    const send = (): void => void this.socket.emit(SERVER_EVENTS.toolCallCancel, { agent: this.name, req_id: reqId });
    if (!this.gate.held) return send();
    // The wait never rejects (it resolves false on its timeout, and the cancel is sent anyway): fire-and-forget as above.
    void this.gate.wait(DEFAULT_ROUTE_TIMEOUT_MS).then(send);
  }

  /** Typed handler for a `notify:*` event. */
  on<E extends keyof NotifyPayloads>(event: E, handler: (data: NotifyPayloads[E]) => void): this {
    this.socket.on(event as string, handler as (d: unknown) => void);
    return this;
  }

  /** Handler for a refreshed view (autoRefresh) or a re-join after reconnect. */
  onRefresh<E extends keyof RefreshEvents>(event: E, handler: (data: RefreshEvents[E]) => void): this {
    this.events.on(event, handler);
    return this;
  }

  /** @internal for agent-refresh.ts */
  emitRefresh<E extends keyof RefreshEvents>(event: E, data: RefreshEvents[E]): void {
    this.events.emit(event, data);
  }

  close(): void {
    this.closed = true;
    this.gate.release();
    this.socket.disconnect();
    this.events.removeAllListeners();
  }

  private requireOffice(): string {
    if (!this.currentOffice) throw new SmcpError(errorPayload(SMCP_CODES.notInRoom, 'not in an office: call joinOffice(office) first'));
    return this.currentOffice;
  }

  private officeCall(event: string, payload: unknown): Promise<[boolean, string | null]> {
    return new Promise((resolve) => {
      this.socket
        .timeout(DEFAULT_ROUTE_TIMEOUT_MS + this.graceMs)
        .emit(event, payload, (err: Error | null, ok: boolean, msg: string | null) =>
          resolve(err ? [false, `[408] no answer to ${event}: ${err.message}`] : [ok, msg]),
        );
    });
  }

  private async request<T>(event: string, extra: JsonObject, o: { checkReqId?: boolean; timeoutMs?: number } = {}): Promise<T> {
    const req_id = randomUUID().replace(/-/g, '');
    const timeoutMs = o.timeoutMs ?? DEFAULT_ROUTE_TIMEOUT_MS + this.graceMs;
    let answer: unknown;
    if (!(await this.gate.wait(timeoutMs)))
      throw new SmcpError(errorPayload(SMCP_CODES.timeout, `no answer to ${event}: not connected again within ${timeoutMs} ms`));
    try {
      answer = await this.socket.timeout(timeoutMs).emitWithAck(event, { agent: this.name, req_id, ...extra });
    } catch {
      throw new SmcpError(errorPayload(SMCP_CODES.timeout, `no answer to ${event} within ${timeoutMs} ms`));
    }
    return requestAnswer<T>(event, answer, req_id, o.checkReqId ?? true);
  }

  /** After a reconnect the Server knows nothing of us: join again, retrying while our old seat is still held. */
  private async rejoin(): Promise<void> {
    const office = this.currentOffice;
    if (!office) return;
    for (let attempt = 1; !this.closed && this.socket.connected; attempt++) {
      try {
        await this.joinOffice(office);
        this.emitRefresh('rejoined', { office });
        return;
      } catch (e) {
        // 4101: the Server has not yet noticed our old connection is gone; it will within its ping timeout.
        if (!(e instanceof SmcpError) || e.code !== SMCP_CODES.roomFull) {
          this.emitRefresh('error', { what: `re-join office ${office}`, error: e as Error });
          return;
        }
      }
      await new Promise((r) => setTimeout(r, backoffDelayMs(attempt, REJOIN)));
    }
  }
}

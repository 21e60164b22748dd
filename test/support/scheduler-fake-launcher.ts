import type { DownstreamSession, LaunchContext, Launcher, RequestOptions } from '../../internal/contract/model/downstream.js';
import { McpdError } from '../../internal/shared/errors.js';
import type { JsonObject } from '../../internal/shared/json.js';
import type { ServerSpec } from '../../internal/contract/model/spec.js';
import type { DownstreamTool } from '../../internal/contract/model/tool.js';
import type { Clock } from '../../internal/core/infra/scheduler/clock.js';

/** A call the test answers by hand (unless the launcher auto-replies). */
export interface PendingCall {
  session: FakeSession;
  method: string;
  params: JsonObject;
  resolve(result: JsonObject): void;
  reject(err: Error): void;
}

/** In-memory DownstreamSession: deadlines run on the injected clock, like the real one. */
export class FakeSession implements DownstreamSession {
  readonly capabilities: JsonObject = { tools: { listChanged: true } };
  readonly serverInfo: JsonObject = { name: 'fake', version: '1' };
  closed = false;
  closedWith?: Error;
  /** Ping goes unanswered (the server is hung). */
  hung = false;
  private notify: ((m: string, p: JsonObject) => void)[] = [];
  private closers: ((err?: Error) => void)[] = [];
  private pending = new Set<PendingCall>();

  constructor(
    readonly pid: number,
    readonly spec: ServerSpec,
    private readonly launcher: FakeLauncher,
    private readonly clock: Clock,
  ) {}

  /** A 2026-07-28 session when the launcher gives list TTLs (its lists then carry `ttlMs`). */
  get protocolVersion(): string | undefined {
    return this.launcher.listTtlMs === undefined ? undefined : '2026-07-28';
  }

  readonly hearsListChanges = true;

  async listTools(opts: { onPage?: (params: JsonObject, page: JsonObject) => void } = {}): Promise<DownstreamTool[]> {
    this.launcher.listCalls++;
    const tools = this.launcher.tools.map((name) => ({ name, definition: { name } }));
    const ttl = this.launcher.listTtlMs;
    opts.onPage?.({}, { tools: tools.map((t) => t.definition), ...(ttl === undefined ? {} : { ttlMs: ttl }) });
    return tools;
  }

  callTool(name: string, args: JsonObject, opts: RequestOptions): Promise<JsonObject> {
    return this.request('tools/call', { name, arguments: args }, opts);
  }

  request(method: string, params: JsonObject, opts: RequestOptions): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new McpdError('UNAVAILABLE', `server ${this.spec.name} exited during the call`));
    if (method === 'ping' && !this.hung) return Promise.resolve({});
    if (this.launcher.autoReply && method !== 'ping') return Promise.resolve({ echoed: params, pid: this.pid });
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(() => done(new McpdError('DEADLINE_EXCEEDED', `${method} timed out`)), opts.timeoutMs);
      const done = (err?: Error, result?: JsonObject) => {
        if (!this.pending.delete(call)) return;
        this.clock.clearTimeout(timer);
        if (err) reject(err);
        else resolve(result as JsonObject);
      };
      const call: PendingCall = { session: this, method, params, resolve: (r) => done(undefined, r), reject: (e) => done(e) };
      this.pending.add(call);
      this.launcher.calls.push(call);
    });
  }

  onNotification(h: (m: string, p: JsonObject) => void): void {
    this.notify.push(h);
  }

  /** Client notifications the pool sent to this server. */
  readonly sent: [string, JsonObject][] = [];

  async sendNotification(method: string, params: JsonObject): Promise<void> {
    this.sent.push([method, params]);
  }

  onClose(h: (err?: Error) => void): void {
    this.closers.push(h);
  }

  onStderr(): void {}

  async close(): Promise<void> {
    this.end(undefined, 'was stopped');
  }

  /** The process died: in-flight calls fail at once, onClose fires with the error. */
  crash(message = 'exited (code 1)'): void {
    this.end(new Error(`server ${this.spec.name} ${message}`), message);
  }

  emit(method: string, params: JsonObject = {}): void {
    for (const h of this.notify) h(method, params);
  }

  private end(err: Error | undefined, why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closedWith = err;
    for (const c of [...this.pending]) c.reject(new McpdError('UNAVAILABLE', `server ${this.spec.name} ${why} during the call`));
    for (const h of this.closers.splice(0)) h(err);
  }
}

interface PendingStart {
  spec: ServerSpec;
  ctx: LaunchContext;
  succeed(): void;
  fail(err: Error): void;
}

export class FakeLauncher implements Launcher {
  sessions: FakeSession[] = [];
  calls: PendingCall[] = [];
  starts: PendingStart[] = [];
  tools = ['a', 'b'];
  listCalls = 0;
  /** The `ttlMs` on tools/list pages; set, the sessions speak 2026-07-28. */
  listTtlMs?: number;
  autoReply = false;
  /** When true, launches wait for succeed()/fail() on `starts`. */
  manualStart = false;
  failWith?: Error;
  private nextPid = 1000;

  constructor(private readonly clock: Clock) {}

  live(): FakeSession[] {
    return this.sessions.filter((s) => !s.closed);
  }

  launch(spec: ServerSpec, ctx: LaunchContext): Promise<FakeSession> {
    return new Promise((resolve, reject) => {
      const make = () => {
        const s = new FakeSession(this.nextPid++, spec, this, this.clock);
        this.sessions.push(s);
        resolve(s);
      };
      const start: PendingStart = { spec, ctx, succeed: make, fail: reject };
      this.starts.push(start);
      if (this.manualStart) return;
      if (this.failWith) reject(this.failWith);
      else make();
    });
  }
}

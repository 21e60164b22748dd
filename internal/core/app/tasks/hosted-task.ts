import type { ClientChannel } from '../../../contract/control/client-requests.js';
import { ClientRequestError, JSONRPC_INTERNAL_ERROR } from '../../../contract/control/client-requests.js';
import type { ProgressUpdate, StartedCall } from '../../../contract/model/downstream.js';
import { TERMINAL_STATUSES, type TaskError, type TaskStatus, type TaskView } from '../../../contract/model/tasks.js';
import { INPUT_KEY_META } from '../../../contract/areas/params.js';
import { McpdError } from '../../../shared/errors.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';
import { secretRedactor } from '../../../shared/redactor.js';

/** SEP-2663's v1 key for the task a result belongs to: redundant on tasks/get, where `taskId` is the root's. */
const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

interface PendingInput {
  request: JsonObject;
  answer(result: JsonObject): void;
  refuse(err: Error): void;
}

export interface HostedTaskInit {
  id: string;
  caller: string;
  tool: string;
  /** The profile's server of the tool, when the caller's index knew it at the start. */
  server?: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Told once, when the task reaches a terminal status. */
  onEnd(task: HostedTask): void;
  /** Told on every change a `view()` shows (status, progress, input requests, outcome). */
  onChange(task: HostedTask): void;
}

/**
 * One task the core hosts: the state of one tool call the core runs on a caller's behalf, and the MCP
 * client that call's server sees — its elicitation, sampling and roots requests wait here as the task's
 * `inputRequests` until `tasks/update` answers them.
 */
export class HostedTask implements ClientChannel {
  createdAt = Date.now();
  private updatedAt = this.createdAt;
  private state: TaskStatus = 'working';
  private message?: string;
  private result?: JsonObject;
  private error?: TaskError;
  private readonly inputs = new Map<string, PendingInput>();
  private asked = 0;
  private call?: StartedCall;
  /** When the task may be forgotten (epoch ms); set once it ends. */
  expiresAt?: number;

  constructor(readonly init: HostedTaskInit) {}

  /**
   * A task a previous core saved: one that ended is as it ended; one that was still running when that core
   * went away failed with it (its call died with the core's servers), and says so.
   */
  static restored(init: HostedTaskInit, view: TaskView, expiresAt: number | undefined, why: string): HostedTask {
    const t = new HostedTask(init);
    t.createdAt = Date.parse(view.createdAt) || t.createdAt;
    t.updatedAt = Date.parse(view.lastUpdatedAt) || t.updatedAt;
    t.message = view.statusMessage;
    if (TERMINAL_STATUSES.has(view.status)) {
      t.state = view.status;
      t.result = view.result;
      t.error = view.error;
      t.expiresAt = expiresAt ?? t.updatedAt + init.ttlMs;
      return t;
    }
    t.abandon(why);
    return t;
  }

  get id(): string {
    return this.init.id;
  }

  get status(): TaskStatus {
    return this.state;
  }

  get ended(): boolean {
    return TERMINAL_STATUSES.has(this.state);
  }

  /** The started call, cancelled by `cancel`; a call that ended already is not kept. */
  running(call: StartedCall): void {
    if (!this.ended) this.call = call;
  }

  view(): TaskView {
    const v: TaskView = {
      taskId: this.id,
      status: this.state,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.updatedAt).toISOString(),
      ttlMs: this.init.ttlMs,
      pollIntervalMs: this.init.pollIntervalMs,
      tool: this.init.tool,
    };
    if (this.init.server !== undefined) v.server = this.init.server;
    if (this.message !== undefined) v.statusMessage = this.message;
    if (this.result !== undefined) v.result = this.result;
    if (this.error !== undefined) v.error = this.error;
    if (this.state === 'input_required') v.inputRequests = Object.fromEntries([...this.inputs].map(([k, p]) => [k, p.request]));
    return v;
  }

  progress(p: ProgressUpdate): void {
    if (this.ended) return;
    this.message = p.message ?? (p.total !== undefined ? `${p.progress} of ${p.total}` : `${p.progress}`);
    this.touch();
  }

  /** The call's result: a tool that ran and reported an error is completed too (`result.isError`), per SEP-2663. */
  completed(result: JsonObject): void {
    if (this.ended) return;
    const meta = result._meta;
    if (isJsonObject(meta) && RELATED_TASK_META in meta) {
      const { [RELATED_TASK_META]: _dropped, ...rest } = meta;
      result = Object.keys(rest).length > 0 ? { ...result, _meta: rest } : withoutMeta(result);
    }
    this.result = result;
    this.end('completed');
  }

  /** The call failed (the server's JSON-RPC error, the pool's, a deadline): `failed` with that error. */
  failed(e: Error): void {
    if (this.ended) return;
    this.error = taskErrorOf(e);
    this.message = this.error.message;
    this.end('failed');
  }

  /** Ends the task `cancelled` and cancels its call downstream. */
  cancel(why: string): void {
    if (this.ended) return;
    this.message = why;
    const call = this.call;
    this.end('cancelled');
    call?.cancel(new McpdError('CANCELLED', why));
  }

  /** Ends the task `failed` with `why` without touching its call (the core is going away with it). */
  abandon(why: string): void {
    if (this.ended) return;
    this.error = { code: JSONRPC_INTERNAL_ERROR, message: why };
    this.message = why;
    const call = this.call;
    this.end('failed');
    call?.cancel(new McpdError('UNAVAILABLE', why));
  }

  /** Answers the input requests named; unknown keys are ignored (SEP-2322 prefers that to an error). */
  answer(responses: JsonObject): void {
    for (const [key, value] of Object.entries(responses)) {
      const p = this.inputs.get(key);
      if (!p || !isJsonObject(value)) continue;
      this.inputs.delete(key);
      p.answer(value);
    }
    if (this.state === 'input_required' && this.inputs.size === 0) this.setStatus('working');
  }

  /** ClientChannel: the call's server asks its client; the task holds the request until it is answered. */
  request(method: string, params: JsonObject, opts: { signal?: AbortSignal }): Promise<JsonObject> {
    if (this.ended) return Promise.reject(new ClientRequestError(JSONRPC_INTERNAL_ERROR, `task ${this.id} has ended`));
    const named = isJsonObject(params._meta) ? params._meta[INPUT_KEY_META] : undefined;
    let key = typeof named === 'string' && named !== '' && !this.inputs.has(named) ? named : `${method}_${++this.asked}`;
    while (this.inputs.has(key)) key = `${method}_${++this.asked}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const gone = () => {
        if (this.inputs.delete(key) && this.inputs.size === 0 && this.state === 'input_required') this.setStatus('working');
        reject(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('withdrawn'));
      };
      opts.signal?.addEventListener('abort', gone, { once: true });
      this.inputs.set(key, {
        request: { method, params },
        answer: (r) => {
          opts.signal?.removeEventListener('abort', gone);
          resolve(r);
        },
        refuse: (e) => {
          opts.signal?.removeEventListener('abort', gone);
          reject(e);
        },
      });
      this.setStatus('input_required');
    });
  }

  private end(status: TaskStatus): void {
    this.setStatus(status);
    this.expiresAt = this.updatedAt + this.init.ttlMs;
    const why = new ClientRequestError(JSONRPC_INTERNAL_ERROR, `task ${this.id} ended (${status}) before its input request was answered`);
    for (const p of this.inputs.values()) p.refuse(why);
    this.inputs.clear();
    this.call = undefined;
    this.init.onEnd(this);
  }

  private setStatus(s: TaskStatus): void {
    this.state = s;
    this.touch();
  }

  private touch(): void {
    this.updatedAt = Date.now();
    this.init.onChange(this);
  }
}

function withoutMeta(result: JsonObject): JsonObject {
  const { _meta: _dropped, ...rest } = result;
  return rest;
}

/** A failure as a JSON-RPC error (SEP-2663's `error`): a server's code is kept, secrets masked. */
function taskErrorOf(e: Error): TaskError {
  const message = secretRedactor.text(e.message);
  if (e instanceof McpdError) {
    const code = e.details.specCode || codeOfReason(e.reason);
    return e.details.data === undefined ? { code, message } : { code, message, data: secretRedactor.value(e.details.data) };
  }
  const code = (e as { code?: unknown }).code;
  return { code: typeof code === 'number' && Number.isSafeInteger(code) ? code : JSONRPC_INTERNAL_ERROR, message };
}

function codeOfReason(reason: McpdError['reason']): number {
  if (reason === 'INVALID_ARGUMENT' || reason === 'NOT_FOUND') return -32602;
  if (reason === 'DEADLINE_EXCEEDED') return -32001;
  return JSONRPC_INTERNAL_ERROR;
}

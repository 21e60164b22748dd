import { INPUT_KEY_META } from '../../../contract/areas/params.js';
import { isMcpdError } from '../../../shared/errors.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';
import type { HostedTask } from './hosted-task.js';
import { CONTROL_TIMEOUT_MS, instanceLost, type PassedTaskInit } from './passed-task.js';
import { serverTaskOf, type ServerTask } from './server-tasks.js';

/**
 * A 2026-07-28 server's task (SEP-2663) as the core passes it on: every tasks/get asks the server, whose
 * DetailedTask carries the task's end (`result` or `error`) and the input it needs (`inputRequests`).
 * Each input request becomes one of `state`'s, under the server's key; the client's answer (tasks/update
 * to the core) goes to the server as its tasks/update.
 */
export class ModernPassedTask {
  /** What the server's CreateTaskResult said, applied once the host keeps the task. */
  created?: ServerTask;
  /** Input requests of the server already put to the client (each is asked once). */
  private readonly asked = new Set<string>();
  private readonly withdraw = new AbortController();

  constructor(
    readonly state: HostedTask,
    readonly init: PassedTaskInit,
  ) {}

  async refresh(): Promise<void> {
    if (this.state.ended) return;
    const answer = await this.control('tasks/get', {}).catch((e: unknown) => void this.controlFailed('tasks/get', e));
    const told = answer && serverTaskOf(answer);
    if (told) this.apply(told, answer);
  }

  /** The server's view of its task: its CreateTaskResult, or a tasks/get's DetailedTask (`detail`). */
  apply(told: ServerTask, detail: JsonObject = {}): void {
    if (this.state.ended) return;
    if (told.statusMessage !== undefined) this.state.progress({ progress: 0, message: told.statusMessage });
    if (told.status === 'completed') this.state.completed(isJsonObject(detail.result) ? detail.result : {});
    else if (told.status === 'failed') this.state.failed(errorOf(detail.error, this.init.server));
    else if (told.status === 'cancelled') this.state.cancel(told.statusMessage ?? `server ${this.init.server} cancelled the task`);
    else if (told.status === 'input_required' && isJsonObject(detail.inputRequests)) this.ask(detail.inputRequests);
    if (this.state.ended) this.withdraw.abort(new Error('the task ended'));
  }

  async cancel(why: string): Promise<void> {
    if (this.state.ended) return;
    try {
      await this.control('tasks/cancel', {});
    } catch (e) {
      this.init.log('info', 'task cancel not acknowledged by its server', {
        task: this.state.id,
        server: this.init.server,
        error: (e as Error).message,
      });
    }
    this.withdraw.abort(new Error(why));
    this.state.cancel(why);
  }

  lost(): void {
    this.withdraw.abort(new Error('instance lost'));
    this.state.abandon(instanceLost(this.init.server));
  }

  /** Puts each new input request to the client; its answer goes to the server as tasks/update. */
  private ask(requests: JsonObject): void {
    for (const [key, req] of Object.entries(requests)) {
      if (this.asked.has(key) || !isJsonObject(req) || typeof req.method !== 'string') continue;
      this.asked.add(key);
      const params = isJsonObject(req.params) ? req.params : {};
      const meta = isJsonObject(params._meta) ? params._meta : {};
      const named = { ...params, _meta: { ...meta, [INPUT_KEY_META]: key } };
      this.state
        .request(req.method, named, { signal: this.withdraw.signal })
        .then(
          (response) => this.control('tasks/update', { inputResponses: { [key]: response } }),
          () => undefined,
        )
        .catch((e: unknown) => this.controlFailed('tasks/update', e));
    }
  }

  private control(method: 'tasks/get' | 'tasks/update' | 'tasks/cancel', extra: JsonObject): Promise<JsonObject> {
    const { fingerprint, key, serverTaskId } = this.init;
    return this.init.pools.pinnedRequest(fingerprint, key, method, { taskId: serverTaskId, ...extra }, CONTROL_TIMEOUT_MS);
  }

  private controlFailed(method: string, e: unknown): void {
    if (isMcpdError(e) && e.reason === 'UNAVAILABLE') return this.lost();
    this.withdraw.abort(new Error(`${method} failed`));
    this.state.failed(e instanceof Error ? e : new Error(String(e)));
    this.init.log('info', `${method} of a passed-through task failed`, { task: this.state.id, server: this.init.server });
  }
}

/** A failed task's `error` (a JSON-RPC error object) as an Error whose code the task keeps. */
function errorOf(raw: unknown, server: string): Error {
  const message = isJsonObject(raw) && typeof raw.message === 'string' ? raw.message : `server ${server} failed the task`;
  const code = isJsonObject(raw) && typeof raw.code === 'number' ? raw.code : undefined;
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

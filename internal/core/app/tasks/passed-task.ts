import type { ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type { TaskStartOptions } from '../../../contract/control/control-areas.js';
import { isMcpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { CoreLog } from '../area-deps.js';
import type { HostedTask } from './hosted-task.js';
import { serverTaskOf, type ServerTask } from './server-tasks.js';

/** How long a server's tasks/get, tasks/update or tasks/cancel may take: bookkeeping, answered at once by a live server. */
export const CONTROL_TIMEOUT_MS = 30_000;

/** What a passed task needs of the pools: requests on the instance its key is pinned to. */
export interface PassedTaskPools {
  /** Without a call slot, on the pinned instance (tasks/get, tasks/cancel); UNAVAILABLE once it is gone. */
  pinnedRequest(fingerprint: string, key: string, method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject>;
  /** As a call (a slot, the caller's routing key): tasks/result, during which the server may ask its client. */
  request(
    fingerprint: string,
    method: string,
    params: JsonObject,
    opts: { routingKey: string; signal: AbortSignal; timeoutMs: number },
  ): Promise<JsonObject>;
}

export interface PassedTaskInit {
  /** The pool and the pinned routing key that reach the instance holding the server's task. */
  fingerprint: string;
  key: string;
  /** The server's own name for it, which never leaves the core. */
  serverTaskId: string;
  server: string;
  opts: TaskStartOptions;
  pools: PassedTaskPools;
  clientRequests: ClientRequestsApi;
  log: CoreLog;
}

/**
 * A 2025-11-25 server's task as the core passes it to a 2026-07-28 client: `state` is what the client is
 * shown (its DetailedTask), kept from what the server says. `tasks/get` asks the server for its status;
 * once the task needs input or has ended, the core fetches `tasks/result`, which answers with the tool's
 * result when the task ends and, meanwhile, carries the server's elicitation, sampling and roots requests
 * for the task — they reach `state` as its `inputRequests` (it is the routing key's client), and
 * `tasks/update` answers them there.
 */
export class PassedTask {
  private fetching?: Promise<void>;
  /** What the server's CreateTaskResult said, applied once the host keeps the task. */
  created?: ServerTask;

  constructor(
    readonly state: HostedTask,
    readonly init: PassedTaskInit,
  ) {}

  /** What the server says now (tasks/get on its instance); an instance that is gone fails the task. */
  async refresh(): Promise<void> {
    if (this.state.ended) return;
    let answer: JsonObject;
    try {
      answer = await this.control('tasks/get');
    } catch (e) {
      this.controlFailed('tasks/get', e);
      return;
    }
    const told = serverTaskOf(answer);
    if (told) this.apply(told);
    // A task that ended on the server: its result is at hand, so the client gets it with this answer.
    if (this.fetching && told && told.status !== 'working' && told.status !== 'input_required') await this.fetching;
  }

  /** The server's view of its task, from its CreateTaskResult or a tasks/get. */
  apply(told: ServerTask): void {
    if (this.state.ended) return;
    if (told.statusMessage !== undefined) this.state.progress({ progress: 0, message: told.statusMessage });
    if (told.status === 'cancelled') this.state.cancel(told.statusMessage ?? `server ${this.init.server} cancelled the task`);
    else if (told.status !== 'working') this.fetchResult();
  }

  /** tasks/cancel on the server, then the task is `cancelled` here (an instance already gone cancels nothing). */
  async cancel(why: string): Promise<void> {
    if (this.state.ended) return;
    try {
      await this.control('tasks/cancel');
    } catch (e) {
      this.init.log('info', 'task cancel not acknowledged by its server', {
        task: this.state.id,
        server: this.init.server,
        error: (e as Error).message,
      });
    }
    this.state.cancel(why);
  }

  /** The instance that held the server's task ended: so did the task. */
  lost(): void {
    this.state.abandon(instanceLost(this.init.server));
  }

  private control(method: 'tasks/get' | 'tasks/cancel'): Promise<JsonObject> {
    const { fingerprint, key, serverTaskId } = this.init;
    return this.init.pools.pinnedRequest(fingerprint, key, method, { taskId: serverTaskId }, CONTROL_TIMEOUT_MS);
  }

  private controlFailed(method: string, e: unknown): void {
    if (isMcpdError(e) && e.reason === 'UNAVAILABLE') return this.lost();
    // The server's own error (it forgot the task, say) ends the task with it: polling on would not change it.
    this.state.failed(e instanceof Error ? e : new Error(String(e)));
    this.init.log('info', `${method} of a passed-through task failed`, { task: this.state.id, server: this.init.server });
  }

  /**
   * tasks/result, once: it waits while the task runs, and the server's requests during it are the task's
   * input requests. Its answer is the task's end — the tool's result (an `isError` result included) or
   * the server's JSON-RPC error.
   */
  private fetchResult(): void {
    if (this.fetching) return;
    const { fingerprint, key, serverTaskId, opts } = this.init;
    const session = { id: key, caller: this.state.init.caller, profile: '', clientName: opts.client };
    const detach = this.init.clientRequests.attach(session, this.state, opts.client);
    if (opts.clientCapabilities) this.init.clientRequests.setCapabilities(key, opts.clientCapabilities, opts.client);
    const stop = new AbortController();
    this.state.running({ cancel: (err) => stop.abort(err) });
    const ask = { routingKey: key, signal: stop.signal, timeoutMs: this.state.init.ttlMs };
    this.fetching = this.init.pools.request(fingerprint, 'tasks/result', { taskId: serverTaskId }, ask).then(
      (result) => {
        detach();
        this.state.completed(result);
      },
      (e: unknown) => {
        detach();
        if (isMcpdError(e) && e.reason === 'UNAVAILABLE') this.lost();
        else this.state.failed(e instanceof Error ? e : new Error(String(e)));
      },
    );
  }
}

/** Why a server's task failed when the instance holding it went. */
export function instanceLost(server: string): string {
  return `the instance of server ${server} that ran the task ended (it crashed, was restarted or was stopped), and the task ended with it; call the tool again`;
}

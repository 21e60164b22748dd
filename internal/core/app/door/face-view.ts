import type {
  ContextApi,
  Paged,
  PromptsApi,
  RequestOpts,
  ResourcesApi,
  ServersApi,
  TasksApi,
} from '../../../contract/control/control-areas.js';
import type { ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type {
  CallOptions,
  CallerMeta,
  CallerSession,
  ControlApi,
  CoreInfo,
  Face,
  ReloadOutcome,
  StatusView,
  StopOutcome,
  Subscription,
  ToolPage,
} from '../../../contract/control/control.js';
import { promiseOf } from '../../domain/call-adapters.js';
import type { CallDone, StartedCall } from '../../../contract/model/downstream.js';
import type { ToolSnapshot } from '../../../contract/model/tool.js';
import type { JsonObject } from '../../../shared/json.js';
import type { LogService } from '../log-service.js';
import type { DoorCall } from './interceptor.js';
import { RefilteredWatch } from './refiltered-watch.js';
import type { CallSpec, Passage } from './passage.js';
import { whileVisible } from './visible-updates.js';

/** A listed tool's name and definition, as the door's filters see them. */
const nameOf = (t: { name: string }) => t.name;
const definitionOf = (t: { definition: JsonObject }) => t.definition;

/**
 * The door as one face sees it (`Door.for(face)`): each method names its call (the area method, its target)
 * and passes the door. Core administration (info, status, reload, stop, caller registration) is no area
 * call and reaches the core as it is.
 */
export class FaceView implements ControlApi {
  readonly resources: ResourcesApi;
  readonly prompts: PromptsApi;
  readonly context: ContextApi;
  readonly logs: LogService;
  readonly clientRequests: ClientRequestsApi;
  readonly tasks: TasksApi;
  readonly servers: ServersApi;

  constructor(
    readonly face: Face,
    private readonly door: Passage,
  ) {
    const core = door.core;
    this.logs = core.logs;
    this.clientRequests = core.clientRequests;
    this.resources = this.resourcesView(core.resources);
    this.prompts = this.promptsView(core.prompts);
    this.context = this.contextView(core.context);
    this.tasks = this.tasksView();
    this.servers = this.serversView();
  }

  info(): CoreInfo {
    return this.door.core.info();
  }

  registerCaller(caller: string, meta: CallerMeta): CallerSession {
    return this.door.core.registerCaller(caller, meta);
  }

  unregisterCaller(sessionId: string): void {
    this.door.core.unregisterCaller(sessionId);
  }

  status(): StatusView {
    return this.door.core.status();
  }

  watchStatus(): Subscription<StatusView> {
    return this.door.core.watchStatus();
  }

  reload(): Promise<ReloadOutcome> {
    return this.door.core.reload();
  }

  requestStop(): StopOutcome {
    return this.door.core.requestStop();
  }

  async listTools(caller: string, cursor?: string, pageSize?: number, client?: string): Promise<ToolPage> {
    const call = this.call({ method: 'tools/list', caller, target: cursor, client });
    const page = await this.door.passAsync(call, undefined, () => this.door.core.listTools(caller, cursor, pageSize));
    if (!this.door.filtering) return page;
    return { ...page, etag: page.etag + this.door.visibilityTag(), tools: this.door.visible(call, page.tools, nameOf, definitionOf) };
  }

  watchTools(caller: string, lastEtag?: string, client?: string): Subscription<ToolSnapshot> {
    const call = this.call({ method: 'tools/watch', caller, client });
    const sub = this.door.open(call, () => this.door.core.watchTools(caller, lastEtag));
    return this.snapshots(sub, (s) => {
      const tools = this.door.visible(call, s.tools, nameOf, definitionOf);
      return s.catalog ? { ...s, tools, catalog: this.door.visible(call, s.catalog, nameOf, definitionOf) } : { ...s, tools };
    });
  }

  toolCall(caller: string, name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall {
    const door = this.door;
    const call = door.callOf(this.face, {
      method: 'tools/call',
      caller,
      target: name,
      args,
      client: opts.client,
      timeoutMs: opts.timeoutMs,
    });
    return door.pass(call, (d) => door.core.toolCall(caller, name, args, opts, call.note, d), done);
  }

  callTool(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    return promiseOf((done) => this.toolCall(caller, name, args, opts, done), opts.signal);
  }

  private call(spec: CallSpec): DoorCall {
    return this.door.callOf(this.face, spec);
  }

  /** A watch's snapshots with what an interceptor hides left out, as the lists leave it out. */
  private snapshots<T extends { etag: string }>(sub: Subscription<T>, filter: (s: T) => T): Subscription<T> {
    return this.door.filtering ? new RefilteredWatch(sub, filter, this.door) : sub;
  }

  private listed<T>(call: DoorCall, page: Paged<T>, nameOf: (item: T) => string): Paged<T> {
    if (!this.door.filtering) return page;
    return { ...page, etag: page.etag + this.door.visibilityTag(), items: this.door.visible(call, page.items, nameOf) };
  }

  private resourcesView(inner: ResourcesApi): ResourcesApi {
    const door = this.door;
    const read = (caller: string, uri: string, opts: RequestOpts) => {
      const call = this.call({ method: 'resources/read', caller, target: uri, client: opts.client, timeoutMs: opts.timeoutMs });
      return door.passAsync(call, opts.signal, (signal) => inner.read(caller, uri, { ...opts, signal }));
    };
    return {
      list: async (caller, cursor, size, client) => {
        const call = this.call({ method: 'resources/list', caller, target: cursor, client });
        return this.listed(call, await door.passAsync(call, undefined, () => inner.list(caller, cursor, size)), (r) => r.uri);
      },
      listTemplates: async (caller, cursor, size, client) => {
        const call = this.call({ method: 'resources/templates/list', caller, target: cursor, client });
        const page = await door.passAsync(call, undefined, () => inner.listTemplates(caller, cursor, size));
        return this.listed(call, page, (t) => t.uriTemplate);
      },
      watch: (caller, etag, client) => {
        const call = this.call({ method: 'resources/watch', caller, client });
        return this.snapshots(
          door.open(call, () => inner.watch(caller, etag)),
          (s) => ({
            ...s,
            resources: door.visible(call, s.resources, (r) => r.uri),
            templates: door.visible(call, s.templates, (t) => t.uriTemplate),
          }),
        );
      },
      read,
      subscribe: async (caller, uri, signal) => {
        const call = this.call({ method: 'resources/subscribe', caller, target: uri });
        const sub = await door.passAsync(call, undefined, () => inner.subscribe(caller, uri, signal));
        signal.addEventListener('abort', () => this.unsubscribed(caller, uri), { once: true });
        return whileVisible(sub, () => door.visible(call, [uri], (u) => u).length > 0);
      },
      channels: (caller) => inner.channels(caller),
    };
  }

  /** A subscription's end passes the door too (its signal ends it; interceptors see that as an unsubscribe). */
  private unsubscribed(caller: string, uri: string): void {
    try {
      this.door.open(this.call({ method: 'resources/unsubscribe', caller, target: uri }), () => undefined);
    } catch {
      // refused: the subscription has ended all the same
    }
  }

  private promptsView(inner: PromptsApi): PromptsApi {
    const door = this.door;
    return {
      list: async (caller, cursor, size, client) => {
        const call = this.call({ method: 'prompts/list', caller, target: cursor, client });
        return this.listed(call, await door.passAsync(call, undefined, () => inner.list(caller, cursor, size)), (p) => p.name);
      },
      watch: (caller, etag, client) => {
        const call = this.call({ method: 'prompts/watch', caller, client });
        return this.snapshots(
          door.open(call, () => inner.watch(caller, etag)),
          (s) => ({ ...s, prompts: door.visible(call, s.prompts, (p) => p.name) }),
        );
      },
      get: (caller, name, args, opts) => {
        const call = this.call({ method: 'prompts/get', caller, target: name, args, client: opts.client, timeoutMs: opts.timeoutMs });
        return door.passAsync(call, opts.signal, (signal) => inner.get(caller, name, args, { ...opts, signal }));
      },
      complete: (caller, params, opts) => {
        const call = this.call({ method: 'completion/complete', caller, args: params, client: opts.client, timeoutMs: opts.timeoutMs });
        return door.passAsync(call, opts.signal, (signal) => inner.complete(caller, params, { ...opts, signal }));
      },
    };
  }

  /**
   * A task's tool call enters through this face's own `toolCall`: it is a tool call like any other to the
   * interceptors (admission, history, policy), made by the face that created the task. Reading, answering
   * and cancelling a task does no work on a server: it reaches the task host as it is.
   */
  private tasksView(): TasksApi {
    const host = this.door.core.tasks;
    const run = this.toolCall.bind(this);
    return {
      modeOf: (caller, tool) => host.modeOf(caller, tool),
      start: (caller, tool, args, opts) => host.start(caller, tool, args, opts, run),
      startAfterAnswer: (caller, tool, args, opts, ask, outcome) => host.startAfterAnswer(caller, tool, args, opts, run, ask, outcome),
      get: (caller, id) => host.get(caller, id),
      update: (caller, id, responses) => host.update(caller, id, responses),
      cancel: (caller, id) => host.cancel(caller, id),
      list: (caller) => host.list(caller),
      listAll: () => host.listAll(),
      onChange: (fn) => host.onChange(fn),
      watch: (caller, id, fn) => host.watch(caller, id, fn),
    };
  }

  /** A restart is an operator's call on a server: the audit log records it, the stop's gate applies (declared `core`). */
  private serversView(): ServersApi {
    const door = this.door;
    return {
      restart: (caller, req) => {
        const args = req.instance !== undefined ? { instance: req.instance } : undefined;
        const call = this.call({ method: 'mcpd/servers/restart', caller, target: req.server, args });
        return door.passAsync(call, undefined, () => door.core.servers.restart(caller, req));
      },
    };
  }

  /** The Desktop and the Finder are reads like any other: they pass the stop's gate (declared `core`). */
  private contextView(inner: ContextApi): ContextApi {
    const door = this.door;
    return {
      desktop: (caller, size, window) =>
        door.passAsync(this.call({ method: 'mcpd/desktop/read', caller, target: window, args: { size } }), undefined, () =>
          inner.desktop(caller, size, window),
        ),
      finder: (caller, query) =>
        door.passAsync(this.call({ method: 'mcpd/finder/query', caller, args: query }), undefined, () => inner.finder(caller, query)),
      watchDesktop: (caller) => door.open(this.call({ method: 'mcpd/desktop/watch', caller }), () => inner.watchDesktop(caller)),
      watchFinder: (caller) => door.open(this.call({ method: 'mcpd/finder/watch', caller }), () => inner.watchFinder(caller)),
    };
  }
}

import type { Socket } from 'socket.io';
import type { JsonObject } from '../../../shared/json.js';
import type { Subscription } from '../../../contract/control/control-areas.js';
import type { DashboardCore, OperatorAction } from './dashboard-port.js';
import type {
  DashboardPush,
  DashboardPushes,
  DashboardRequest,
  Reply,
  RequestAnswer,
  WatchKind,
} from '../../../contract/dashboard/dashboard-events.js';
import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import { LogRelay } from './log-relay.js';
import { PAGE_CAPABILITIES, PageInputRequests } from './page-input-requests.js';
import { Args } from './socket-args.js';
import { outputSchemaBreach } from './output-check.js';
import type { AppFrames } from './app-frames.js';
import { prepareAppFrame } from './app-resource.js';
import { watchTaskRows } from './task-rows.js';
import { answerTask } from './task-answers.js';

type Ack = (reply: Reply<unknown>) => void;
type Watch = WatchKind;

/**
 * One page's session on namespace /app: requests answered by ack, and live watches pushed as events.
 * Every watch is one of the core's own subscriptions, ended when the page replaces it or leaves.
 */
export class DashboardSession {
  private readonly watches = new Map<Watch, () => void>();
  private readonly calls = new Map<string, AbortController>();
  private readonly subscriptions = new Map<string, AbortController>();
  private readonly gone = new AbortController();
  private readonly inputs = new PageInputRequests((event, payload) => this.push(event, payload));
  /** This page's own routing namespace: no page can name another's call (or a gateway session). */
  private readonly pageKey = randomUUID();

  constructor(
    private readonly socket: Socket,
    private readonly core: DashboardCore,
    private readonly frames: AppFrames,
  ) {
    socket.on('disconnect', () => this.close());
    this.routes();
  }

  /** Answers one request of the protocol (contract/dashboard/dashboard-events.ts); `fn` checks the arguments. */
  private on<E extends DashboardRequest>(
    event: E,
    fn: (a: Args) => RequestAnswer<E> | Promise<RequestAnswer<E>> | void | Promise<void>,
  ): void {
    // Socket.IO hands the ack as the last argument, wherever that is: a request sent with no arguments
    // (or with several) must still be answered, not taken for one whose ack is its arguments.
    this.socket.on(event as string, (...sent: unknown[]) => {
      const last = sent.at(-1);
      const ack = typeof last === 'function' ? (sent.pop() as Ack) : undefined;
      // Without an ack function there is nobody to answer; the request still runs (and fails) quietly.
      const reply = ack ?? (() => {});
      Promise.resolve()
        .then(() => {
          if (sent.length > 1) throw new Error(`${event}: expected one object of arguments, got ${sent.length} arguments`);
          return fn(new Args(event, sent[0] ?? {}));
        })
        .then(
          (value) => reply({ ok: true, value: value ?? null }),
          (e: unknown) => reply({ ok: false, error: e instanceof Error ? e.message : String(e) }),
        );
    });
  }

  private routes(): void {
    const c = this.core;
    this.on('hello', () => ({ info: c.info(), status: c.status(), callers: c.callers() }));
    this.on('watch', (a) => this.watch(a));
    this.on('unwatch', (a) => this.stopWatch(a.str('kind') as Watch));
    this.on('call', (a) => this.call(a));
    this.on('cancel', (a) => this.calls.get(a.str('id'))?.abort());
    this.on('read', (a) => c.resources.read(a.str('caller'), a.str('uri'), { signal: this.gone.signal }));
    this.on('templates', async (a) => (await c.resources.listTemplates(a.str('caller'), a.optStr('cursor'), 500)).items);
    this.on('subscribe', (a) => this.subscribe(a.str('caller'), a.str('uri')));
    this.on('unsubscribe', (a) => this.subscriptions.get(a.str('uri'))?.abort());
    this.on('prompt', (a) => c.prompts.get(a.str('caller'), a.str('name'), a.object('args'), { signal: this.gone.signal }));
    this.on('complete', (a) => c.prompts.complete(a.str('caller'), a.object('params'), { signal: this.gone.signal }));
    this.on('desktop', (a) => c.context.desktop(a.str('caller'), a.optNum('size'), a.optStr('window')));
    this.on('finder', (a) =>
      c.context.finder(a.str('caller'), {
        keywords: a.optStr('keywords')?.split(/\s+/).filter(Boolean),
        fileType: a.optStr('fileType'),
        offset: a.optNum('offset'),
        limit: a.optNum('limit') ?? 50,
      }),
    );
    this.on('config', () => c.storeFiles());
    this.on('connect-info', () => c.connectInfo());
    this.on('action', (a) => c.act(actionOf(a)));
    this.on('input-answer', (a) => this.inputs.answer(a));
    this.on('app-frame', (a) => prepareAppFrame(c, this.frames, a.str('caller'), a.str('tool'), this.gone.signal));
    // As `mcpdctl tasks CALLER [TASK] [--cancel]`: the task is looked up under its caller.
    this.on('task', (a) => c.tasks.get(a.str('caller'), a.str('taskId')));
    this.on('cancel-task', (a) => c.tasks.cancel(a.str('caller'), a.str('taskId')));
    this.on('answer-task', (a) => answerTask(c.tasks, a));
  }

  /** Sends one event of the protocol to this page. */
  private push<E extends DashboardPush>(event: E, payload: DashboardPushes[E]): void {
    this.socket.emit(event, payload);
  }

  private watch(a: Args): void {
    const kind = a.str('kind') as Watch;
    const caller =
      kind === 'status' || kind === 'pins' || ((kind === 'logs' || kind === 'audit' || kind === 'tasks') && !a.optStr('caller'))
        ? undefined
        : a.str('caller');
    this.stopWatch(kind);
    const ctl = new AbortController();
    const c = this.core;
    const who = caller as string;
    switch (kind) {
      case 'status':
        return this.follow(kind, c.watchStatus(), (s) => this.push('status', { status: s, callers: c.callers() }));
      case 'pins':
        return this.follow(kind, c.watchPins(), (servers) => this.push('pins', { servers }));
      // The core's watches carry the context channels' entries (mcpd_finder, mcpd://desktop, mcpd://finder).
      case 'tools':
        return this.follow(kind, c.watchTools(who), (s) => this.push('tools', { caller: who, ...s }));
      case 'resources':
        return this.follow(kind, c.resources.watch(who), (s) => this.push('resources', { caller: who, ...s }));
      case 'prompts':
        return this.follow(kind, c.prompts.watch(who), (s) => this.push('prompts', { caller: who, ...s }));
      case 'desktop':
      case 'finder': {
        const sub = kind === 'desktop' ? c.context.watchDesktop(who) : c.context.watchFinder(who);
        return this.follow(kind, sub, (v) => this.push(kind === 'desktop' ? 'desktop-changed' : 'finder-changed', { caller: who, ...v }));
      }
      case 'logs': {
        const min = a.level('minLevel');
        const sub = caller ? c.logs.stream(caller, min, ctl.signal, { backlog: true }) : c.allLogs(min, ctl.signal);
        const relay = new LogRelay(sub, {
          writable: () => this.socket.conn.transport.writable,
          send: (batch) => this.push('logs', { caller: caller ?? null, ...batch }),
          onDrain: (cb) => {
            this.socket.conn.on('drain', cb);
            return () => this.socket.conn.off('drain', cb);
          },
        });
        this.watches.set(kind, () => {
          ctl.abort();
          relay.stop();
        });
        return;
      }
      case 'audit':
        return this.watchAudit(caller);
      case 'tasks':
        return void this.watches.set(
          kind,
          watchTaskRows(c.tasks, caller, (tasks) => this.push('tasks', { caller: caller ?? null, tasks })),
        );
      default:
        throw new Error(
          `watch: unknown kind "${String(kind)}" (status, tools, resources, prompts, desktop, finder, logs, pins, audit, tasks)`,
        );
    }
  }

  /** The audit log's recent entries, then each batch as it is written (one caller's, or all). */
  private watchAudit(caller: string | undefined): void {
    const feed = this.core.audit;
    const send = (entries: readonly AuditEntry[]) => {
      const shown = caller === undefined ? entries : entries.filter((e) => e.kind === 'gap' || e.caller === caller);
      if (shown.length > 0) this.push('audit', { caller: caller ?? null, entries: shown, off: false });
    };
    if (!feed) return this.push('audit', { caller: caller ?? null, entries: [], off: true });
    this.push('audit', { caller: caller ?? null, entries: [], off: false });
    send(feed.recent());
    this.watches.set('audit', feed.onWritten(send));
  }

  private follow<T>(kind: Watch, sub: Subscription<T>, send: (v: T) => void): void {
    // return() only marks the watch done and settles at once; the loop below then ends.
    this.watches.set(kind, () => void sub.return?.());
    // Lives as long as the watch; a failing watch is reported to the page below, so this never rejects.
    void (async () => {
      try {
        for await (const v of sub) send(v);
      } catch (e) {
        this.push('watch-error', { kind, error: e instanceof Error ? e.message : String(e) });
      }
    })();
  }

  private stopWatch(kind: Watch): void {
    this.watches.get(kind)?.();
    this.watches.delete(kind);
  }

  /**
   * A try-it call. Its own routing key, attached to the core's client-request router for as long as it
   * runs, brings this page the server's requests of this call (elicitation, sampling) and no other's.
   */
  private async call(a: Args): Promise<JsonObject> {
    const id = a.str('id');
    const caller = a.str('caller');
    if (this.calls.has(id)) throw new Error(`call: a call with id "${id}" is still running on this page; give each call its own id`);
    const ctl = new AbortController();
    this.calls.set(id, ctl);
    const routingKey = `mcpd/dashboard:${this.pageKey}:${encodeURIComponent(id)}`;
    const channel = this.inputs.channel(id);
    const profile = this.core.callers().find((r) => r.caller === caller)?.profile ?? 'default';
    const detach = this.core.clientRequests.attach({ id: routingKey, caller, profile }, channel, 'mcpd dashboard');
    this.core.clientRequests.setCapabilities(routingKey, PAGE_CAPABILITIES, 'mcpd dashboard');
    try {
      const name = a.str('name');
      const result = await this.core.callTool(caller, name, a.object('args'), {
        routingKey,
        signal: ctl.signal,
        timeoutMs: a.optNum('timeoutMs'),
        onProgress: (p) => this.push('progress', { id, ...p }),
      });
      // As docs/app.md promises: a result a stock client would refuse is an error here too, not a success.
      const breach = outputSchemaBreach(name, await this.outputSchemaOf(caller, name), result);
      if (breach) throw new Error(breach);
      return result;
    } finally {
      channel.close('its call ended');
      detach();
      this.calls.delete(id);
    }
  }

  /** The tool's output schema as the caller's listing has it (undefined: none, or the tool left the list). */
  private async outputSchemaOf(caller: string, name: string): Promise<unknown> {
    let cursor: string | undefined;
    do {
      const page = await this.core.listTools(caller, cursor);
      const hit = page.tools.find((t) => t.name === name);
      if (hit) return hit.definition.outputSchema;
      cursor = page.nextCursor;
    } while (cursor);
    return undefined;
  }

  private async subscribe(caller: string, uri: string): Promise<void> {
    this.subscriptions.get(uri)?.abort();
    const ctl = new AbortController();
    this.subscriptions.set(uri, ctl);
    const sub = await this.core.resources.subscribe(caller, uri, ctl.signal);
    void (async () => {
      for await (const params of sub) this.push('updated', { caller, uri, params });
    })()
      // Ignored: the subscription ended with the socket or the pool; finally() releases it either way.
      .catch(() => {})
      .finally(() => {
        if (this.subscriptions.get(uri) === ctl) this.subscriptions.delete(uri);
      });
  }

  close(): void {
    this.gone.abort();
    // Calls in flight are cancelled downstream; subscriptions let go of their pins.
    for (const c of this.calls.values()) c.abort();
    this.inputs.close();
    for (const c of this.subscriptions.values()) c.abort();
    this.subscriptions.clear();
    for (const stop of this.watches.values()) stop();
    this.watches.clear();
  }
}

function actionOf(a: Args): OperatorAction {
  const kind = a.str('kind');
  if (kind === 'reload') return { kind };
  if (kind === 'restart') return { kind, fingerprint: a.str('fingerprint'), instance: a.str('instance') };
  if (kind === 'stop-pool' || kind === 'resume') return { kind, fingerprint: a.str('fingerprint') };
  if (kind === 'approve-pins') return { kind, server: a.str('server'), tool: a.optStr('tool') };
  throw new Error(`action: unknown kind "${kind}" (restart, stop-pool, resume, reload, approve-pins)`);
}

import type { ControlApi, Subscription } from '../../contract/control/control.js';
import type { Profile } from '../../contract/model/profile.js';
import { toErrorPayload } from '../domain/smcp-computer/error-payload.js';
import type { SmcpComputerSettings, SmcpComputerStatus, SmcpLinkState, SmcpSettings } from '../../contract/model/smcp-computer-settings.js';
import { errorPayload, SMCP_CODES } from '../../contract/smcp/error-codes.js';
import { CLIENT_EVENTS, NOTIFY_EVENTS, SERVER_EVENTS, type ClientEvent } from '../../contract/smcp/events.js';
import type { GetDeskTopReq, GetFinderReq, ReadResourceReq, ToolCallReq } from '../../contract/smcp/types.js';
import { validateClientRequest, validateToolCallCancel, type RoutedRequest } from '../../contract/smcp/validate.js';
import { ComputerLink } from '../infra/smcp-computer/computer-link.js';
import type { CoreLog } from './area-deps.js';
import { smcpConfig, smcpTools } from './smcp-views.js';
import { SmcpToolCalls } from './smcp-tool-calls.js';

export interface ComputerDeps {
  api: ControlApi;
  profileOf(caller: string): Profile;
  log: CoreLog;
  /** The computer's connection state changed (status watchers). */
  onStatus(): void;
}

/**
 * The core as one A2C-SMCP Computer: answers the office's agent from one caller's view and tells
 * the office when that view changes (docs/smcp.md, "The core as a Computer").
 */
export class SmcpComputer {
  private readonly link: ComputerLink;
  private readonly calls: SmcpToolCalls;
  private readonly watches: { return?: () => unknown }[] = [];
  private st: SmcpComputerStatus;
  private configKey?: string;

  constructor(
    private readonly settings: SmcpSettings,
    private readonly me: SmcpComputerSettings,
    private readonly deps: ComputerDeps,
  ) {
    this.st = {
      name: me.name,
      caller: me.caller,
      office: settings.office,
      url: settings.url,
      state: 'connecting',
      since: Date.now(),
      joins: 0,
    };
    this.calls = new SmcpToolCalls(deps.api, () => me.caller);
    this.link = new ComputerLink({
      url: settings.url,
      apiKey: settings.apiKey,
      office: settings.office,
      name: me.name,
      onState: (state, d) => this.setState(state, d),
      onDrop: () => this.calls.abortAll(`computer ${me.name} lost its connection to the SMCP Server`),
    });
    this.answerOffice();
  }

  /** The `client:*` requests this computer answers, and the cancellations it acts on. */
  private answerOffice(): void {
    const { api } = this.deps;
    const caller = this.me.caller;
    this.handle(CLIENT_EVENTS.getTools, async () => ({ tools: await smcpTools(api, caller, this.profile()) }));
    this.handle(CLIENT_EVENTS.toolCall, (r) => this.calls.call(r as ToolCallReq), false);
    this.handle(CLIENT_EVENTS.getDesktop, async (r) => {
      const { desktop_size, window } = r as GetDeskTopReq;
      return { desktops: (await api.context.desktop(caller, desktop_size, window)).windows };
    });
    this.handle(CLIENT_EVENTS.getFinder, async (r) => {
      const q = r as GetFinderReq;
      const v = await api.context.finder(caller, { keywords: q.keywords, fileType: q.file_type, offset: q.offset, limit: q.limit });
      return { documents: v.documents, total_count: v.totalCount };
    });
    this.handle(CLIENT_EVENTS.readResource, (r) => api.resources.read(caller, (r as ReadResourceReq).uri, {}), false);
    this.handle(CLIENT_EVENTS.getConfig, async () => smcpConfig(this.profile()), false);
    this.link.onEvent(NOTIFY_EVENTS.toolCallCancel, (data) => {
      const t = validateToolCallCancel(data);
      if (t.ok) this.calls.cancel(t.value.agent, t.value.req_id);
    });
  }

  start(): void {
    this.configKey = JSON.stringify(smcpConfig(this.profile()));
    this.link.start();
    const caller = this.me.caller;
    // The etag also moves while a new server starts and its listing settles; the office hears only of a
    // change to the tools it would get (one notice per real change, not three with the same list). A
    // snapshot taken while a server's tools are being listed lacks them for now (an env-only edit makes a
    // new spec that lists the same tools again): it is no view to compare with.
    this.follow(this.deps.api.watchTools(caller), SERVER_EVENTS.updateToolList, (s) =>
      s.loading?.length ? undefined : JSON.stringify((s.catalog ?? s.tools).map((t) => t.definition)),
    );
    this.follow(this.deps.api.context.watchDesktop(caller), SERVER_EVENTS.updateDesktop);
    this.follow(this.deps.api.context.watchFinder(caller), SERVER_EVENTS.updateFinder);
  }

  stop(): void {
    // A watch's return() only marks it done and settles at once; stop() need not wait for it.
    for (const w of this.watches) void w.return?.();
    this.calls.abortAll(`computer ${this.me.name} was stopped`);
    this.link.close();
  }

  status(): SmcpComputerStatus {
    return { ...this.st };
  }

  /** After a reload: the caller's servers or inputs may differ; tell the office only if its config did. */
  configMayHaveChanged(): void {
    const next = JSON.stringify(smcpConfig(this.profile()));
    if (next === this.configKey) return;
    this.configKey = next;
    this.notify(SERVER_EVENTS.updateConfig);
  }

  private profile(): Profile {
    return this.deps.profileOf(this.me.caller);
  }

  /**
   * Registers a `client:*` handler: a bad payload gets a 400 naming the field, a request for another
   * computer a 404, a failure the flat ErrorPayload (Finder codes 4201–4204 unchanged);
   * `withReqId` adds the request's req_id to the ack, as the Ret structures have it.
   */
  private handle(event: ClientEvent, run: (req: RoutedRequest) => Promise<object>, withReqId = true): void {
    this.link.onRequest(event, async (data) => {
      const v = validateClientRequest(event, data);
      if (!v.ok) return v.error;
      const req = v.value;
      if (req.computer !== this.me.name) {
        return errorPayload(SMCP_CODES.notFound, `computer: this is computer "${this.me.name}", not "${req.computer}"`, {
          field: 'computer',
        });
      }
      try {
        const out = await run(req);
        return withReqId ? { ...out, req_id: req.req_id } : out;
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        this.deps.log('warning', 'smcp.request_failed', { computer: this.me.name, event, agent: req.agent, error });
        return toErrorPayload(e);
      }
    });
  }

  /** Same change detection as the gRPC watches: the first item is the current view, later ones are changes. */
  private follow<T extends { etag: string }>(
    sub: Subscription<T>,
    event: string,
    /** What a change is measured by; undefined: this item is a passing state, compared with nothing. */
    key: (s: T) => string | undefined = (s) => s.etag,
  ): void {
    this.watches.push(sub);
    // Runs for the link's life; a watch that fails is logged below, so this never rejects.
    void (async () => {
      let last: string | undefined;
      try {
        for await (const s of sub) {
          const k = key(s);
          if (k === undefined) continue;
          if (last !== undefined && k !== last) this.notify(event);
          last = k;
        }
      } catch (e) {
        this.deps.log('warning', 'smcp.watch_ended', { computer: this.me.name, event, error: e instanceof Error ? e.message : String(e) });
      }
    })();
  }

  private notify(event: string): void {
    if (this.link.emit(event, { computer: this.me.name })) this.deps.log('debug', 'smcp.notified', { computer: this.me.name, event });
  }

  private setState(state: SmcpLinkState, d: { sid?: string; error?: string }): void {
    const joins = this.st.joins + (state === 'joined' ? 1 : 0);
    this.st = { ...this.st, state, since: Date.now(), joins, sid: d.sid };
    if (d.error !== undefined) this.st.lastError = d.error;
    if (state === 'joined' || d.error !== undefined) {
      const level = state === 'joined' ? 'info' : 'warning';
      this.deps.log(level, `smcp.${state}`, { computer: this.me.name, office: this.settings.office, sid: d.sid, error: d.error });
    }
    this.deps.onStatus();
  }
}

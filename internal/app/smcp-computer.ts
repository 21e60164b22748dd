import type { ControlApi, Subscription } from '../domain/control.js';
import type { Profile } from '../domain/profile.js';
import { errorPayload } from '../domain/smcp-computer/error-payload.js';
import {
  cancelTarget,
  checkRequest,
  desktopFields,
  finderFields,
  noFields,
  readResourceFields,
  toolCallFields,
  type AgentCall,
} from '../domain/smcp-computer/requests.js';
import type { SmcpComputerSettings, SmcpComputerStatus, SmcpLinkState, SmcpSettings } from '../domain/smcp-computer/settings.js';
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

type Obj = Record<string, unknown>;

/**
 * The core as one A2C-SMCP Computer: answers the office's agent from one caller's view and tells
 * the office when that view changes (docs/smcp.md, "The core as a Computer").
 */
export class SmcpComputer {
  private readonly link: ComputerLink;
  private readonly calls: SmcpToolCalls;
  private readonly watches: Subscription<{ etag: string }>[] = [];
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
    this.handle('client:get_tools', noFields, async () => ({ tools: await smcpTools(this.deps.api, me.caller, this.profile()) }));
    this.handle('client:tool_call', toolCallFields, (r) => this.calls.call(r), false);
    this.handle('client:get_desktop', desktopFields, async (r) => ({
      desktops: (await deps.api.context.desktop(me.caller, r.desktop_size, r.window)).windows,
    }));
    this.handle('client:get_finder', finderFields, async (r) => {
      const v = await deps.api.context.finder(me.caller, { keywords: r.keywords, fileType: r.file_type, offset: r.offset, limit: r.limit });
      return { documents: v.documents, total_count: v.totalCount };
    });
    this.handle('client:read_resource', readResourceFields, (r) => deps.api.resources.read(me.caller, r.uri, {}), false);
    this.handle('client:get_config', noFields, async () => smcpConfig(this.profile()), false);
    this.link.onEvent('notify:tool_call_cancel', (data) => {
      const t = cancelTarget(data);
      if (t) this.calls.cancel(t.agent, t.req_id);
    });
  }

  start(): void {
    this.configKey = JSON.stringify(smcpConfig(this.profile()));
    this.link.start();
    const caller = this.me.caller;
    this.follow(this.deps.api.watchTools(caller), 'server:update_tool_list');
    this.follow(this.deps.api.context.watchDesktop(caller), 'server:update_desktop');
    this.follow(this.deps.api.context.watchFinder(caller), 'server:update_finder');
  }

  stop(): void {
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
    this.notify('server:update_config');
  }

  private profile(): Profile {
    return this.deps.profileOf(this.me.caller);
  }

  /**
   * Registers a `client:*` handler: bad payloads get a 400 naming the field, failures the flat
   * ErrorPayload (Finder codes 4201–4204 unchanged); `withReqId` adds the request's req_id to the ack.
   */
  private handle<T extends AgentCall>(
    event: string,
    fields: (o: Obj) => Omit<T, keyof AgentCall>,
    run: (req: T) => Promise<object>,
    withReqId = true,
  ): void {
    this.link.onRequest(event, async (data) => {
      const req = checkRequest<T>(data, this.me.name, fields);
      if (!req.ok) return req.error;
      try {
        const out = await run(req.value);
        return withReqId ? { ...out, req_id: req.value.req_id } : out;
      } catch (e) {
        this.deps.log('warning', 'smcp.request_failed', {
          computer: this.me.name,
          event,
          agent: req.value.agent,
          error: e instanceof Error ? e.message : String(e),
        });
        return errorPayload(e);
      }
    });
  }

  /** Same change detection as the gRPC watches: the first item is the current view, later ones are changes. */
  private follow(sub: Subscription<{ etag: string }>, event: string): void {
    this.watches.push(sub);
    void (async () => {
      let last: string | undefined;
      try {
        for await (const s of sub) {
          if (last !== undefined && s.etag !== last) this.notify(event);
          last = s.etag;
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
    this.st = { ...this.st, state, since: Date.now(), joins, ...(d.sid ? { sid: d.sid } : { sid: undefined }) };
    if (d.error !== undefined) this.st.lastError = d.error;
    if (state === 'joined' || d.error !== undefined) {
      this.deps.log(state === 'joined' ? 'info' : 'warning', `smcp.${state}`, {
        computer: this.me.name,
        office: this.settings.office,
        sid: d.sid,
        error: d.error,
      });
    }
    this.deps.onStatus();
  }
}

import type { CallOptions } from '../../contract/control/control.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { ToolEntry } from '../../contract/model/tool.js';
import type { CallDone, StartedCall } from '../../contract/model/downstream.js';
import { promiseOf, viaPromise } from '../domain/call-adapters.js';
import { SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import type { ToolService } from './tool-service.js';
import { isSearchModeTool, toolError, ToolSearchCalls } from './tool-search-calls.js';
import { viewProfileName } from './caller-naming.js';
import { afterReloads, markDispatched, type ReloadProgress } from './reload-retry.js';
import { settledBeforeDeadline } from './call-deadline.js';
import { secretRedactor } from '../../shared/redactor.js';

export interface ToolCallDeps {
  pools: PoolPort;
  store: StoreState;
  tools: ToolService;
  reloads: ReloadProgress;
  /** The caller's tool view (caller-naming.ts): its profile's name, or a key of its own reserve. */
  profileOf(caller: string): string;
}

/** What a tool call reached, for what the door does when it ends (history, the log line, later audit). */
export interface ToolCallNote {
  /** The entry it was sent to; unset while it resolves, reset when a reload makes it try again. */
  tool?: ToolEntry;
  /** Whether the caller may see a tool (the door's filters): search results leave out what lists leave out. */
  visible?: (name: string, definition?: JsonObject) => boolean;
  /** The door's word on the tool a call reached (an app-only tool, to a model): an Error refuses the call. */
  admit?: (tool: ToolEntry) => Error | undefined;
  /** A call of the call tool: the tool it names and its arguments (what policy judges and the audit log records). */
  through?: { tool: string; args: JsonObject };
}

const NOTHING_SENT: StartedCall = { cancel: () => {} };

/** A tool call from resolution to result: the caller's profile, reload races, search mode. */
export class ToolCalls {
  private readonly toolSearch = new ToolSearchCalls();

  constructor(private readonly d: ToolCallDeps) {}

  /**
   * A tool call on its one path (decision 46). The common case — the name is in the caller's index, no
   * reload is being applied, no search-mode tool — goes to its pool in this turn. Otherwise the call is
   * parked until what it waits for is done (a first listing, a reload) and resumed from there: the same
   * `dispatch` sends it. `done` may be called before this returns.
   */
  toolCall(caller: string, name: string, args: JsonObject, opts: CallOptions, note: ToolCallNote, done: CallDone): StartedCall {
    if (this.d.reloads.settled) {
      const entry = this.d.tools.index(this.d.profileOf(caller)).find(name);
      if (entry && !isSearchModeTool(entry)) return this.dispatch(entry, args, opts, note, done);
    }
    return viaPromise((signal) => this.call(caller, name, args, { ...opts, signal }, note), done);
  }

  /**
   * A reload can replace the tool's server spec while a call resolves it: its pool is gone, or the
   * name is briefly unknown while the new spec is listed (nothing reached a server either way). Such
   * a call waits for the reload to be applied and resolves the name again — a few times at most
   * while edits keep coming — so it is answered against the configuration after the reload.
   */
  private call(caller: string, name: string, args: JsonObject, opts: CallOptions, note: ToolCallNote): Promise<JsonObject> {
    return afterReloads(this.d.reloads, `tool ${JSON.stringify(name)}`, (last) =>
      this.callResolvedTool(caller, name, args, opts, note, last),
    );
  }

  private async callResolvedTool(
    caller: string,
    name: string,
    args: JsonObject,
    opts: CallOptions,
    note: ToolCallNote,
    last: boolean,
  ): Promise<JsonObject> {
    const profile = this.d.profileOf(caller);
    // A name the index already knows needs no listing first: the common case, a client calling what it listed.
    const entry = this.d.tools.index(profile).find(name) ?? (await this.loadAndResolve(profile, name, opts));
    if (isSearchModeTool(entry)) return this.searchModeCall(caller, profile, entry, args, opts, note);
    try {
      return await promiseOf((done) => this.dispatch(entry, args, opts, note, done), opts.signal);
    } catch (e) {
      // An attempt that will be retried on the new pool is not part of the caller's history.
      if (!last && e instanceof PoolGoneError) note.tool = undefined;
      // What the pool answered is the server's (or the pool's) error, never "raced a reload" (reload-retry.ts).
      throw markDispatched(e);
    }
  }

  /**
   * Sends the call to the entry's pool: the one place the immediate and the resumed call, and the call
   * tool's, go through — so the door's `admit` sees every tool a call reaches.
   */
  private dispatch(entry: ToolEntry, args: JsonObject, opts: CallOptions, note: ToolCallNote, done: CallDone): StartedCall {
    const refused = note.admit?.(entry);
    if (refused) {
      done.error(refused);
      return NOTHING_SENT;
    }
    note.tool = entry;
    return this.d.pools.toolCall(entry.fingerprint, entry.downstreamName, args, opts, {
      // An error result echoing the server's credential is masked like a JSON-RPC error (forwarded bytes were, downstream).
      result: (result) => done.result(result.isError === true ? secretRedactor.value(result) : result),
      error: (e) => done.error(e),
    });
  }

  /** The search tool is answered here; the call tool becomes a call of the tool it names. */
  private searchModeCall(
    caller: string,
    profile: string,
    entry: ToolEntry,
    args: JsonObject,
    opts: CallOptions,
    note: ToolCallNote,
  ): Promise<JsonObject> {
    const settings = this.d.tools.profile(profile)?.toolSearch;
    const snapshot = this.d.tools.index(profile).snapshot();
    if (!settings)
      return Promise.resolve(toolError(`profile "${viewProfileName(profile)}" is not in tool search mode any more; list the tools again`));
    const visible = note.visible;
    const shown = visible && ((t: ToolEntry) => visible(t.name, t.definition));
    if (entry.name === SEARCH_TOOL) return Promise.resolve(this.toolSearch.search(snapshot, settings, args, shown));
    const asked = this.toolSearch.target(args);
    if ('error' in asked) return Promise.resolve(asked.error);
    note.through = { tool: asked.target.name, args: asked.target.arguments };
    return this.call(caller, asked.target.name, asked.target.arguments, opts, note);
  }

  /**
   * A name the index does not know yet: the profile's servers are listed first, waiting as a listing does
   * (the listing budget) and never past the call's deadline — a stalled server must not hold a call for a
   * name no listing has. What is still being listed then is named in the NOT_FOUND.
   */
  private async loadAndResolve(profile: string, name: string, opts: CallOptions): Promise<ToolEntry> {
    await settledBeforeDeadline(this.d.tools.loadWithin(profile), opts);
    return this.resolveTool(profile, name, opts);
  }

  /**
   * A call is explicit demand: when the name is unknown and some server of the profile could not be
   * listed, try those servers again before answering, and say which ones failed.
   */
  private async resolveTool(profile: string, name: string, opts: CallOptions): Promise<ToolEntry> {
    const idx = this.d.tools.index(profile);
    try {
      return idx.resolve(name);
    } catch {
      const withheld = this.d.tools.withheldRefusal(profile, name);
      if (withheld) throw withheld;
      if (this.d.tools.failuresFor(profile).length > 0) {
        await settledBeforeDeadline(this.d.tools.loadWithin(profile, { retryFailed: true }), opts);
      }
      try {
        return idx.resolve(name);
      } catch (again) {
        throw this.notFound(profile, again);
      }
    }
  }

  /** The NOT_FOUND, with the servers that could not be listed and those still being listed. */
  private notFound(profile: string, e: unknown): unknown {
    if (!(e instanceof McpdError)) return e;
    const failed = this.d.tools.failuresFor(profile);
    const loading = this.d.tools.loadingServers(profile);
    const notes = [
      ...(failed.length > 0 ? [`servers that could not be listed: ${failed.join('; ')}`] : []),
      ...(loading.length > 0
        ? [`servers still being listed (their tools join with notifications/tools/list_changed): ${loading.join(', ')}`]
        : []),
    ];
    return notes.length === 0 ? e : new McpdError(e.reason, `${e.message}; ${notes.join('; ')}`);
  }
}

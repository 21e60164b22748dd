import type { CallOptions } from '../../contract/control/control.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { ToolEntry } from '../../contract/model/tool.js';
import type { CallerHistories, ToolCallRecord } from '../domain/history/tool-call-history.js';
import type { CallDone, StartedCall } from '../../contract/model/downstream.js';
import { SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import type { CoreLog } from './area-deps.js';
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
  history: CallerHistories;
  reloads: ReloadProgress;
  /** The caller's tool view (caller-naming.ts): its profile's name, or a key of its own reserve. */
  profileOf(caller: string): string;
  /** Each finished call is logged at info: caller, tool, outcome, duration (never its arguments). */
  log: CoreLog;
}

/** A tool call from resolution to result: the caller's profile, reload races, search mode, the history record. */
export class ToolCalls {
  private callSeq = 0;
  private readonly toolSearch = new ToolSearchCalls();

  constructor(private readonly d: ToolCallDeps) {}

  /**
   * A reload can replace the tool's server spec while a call resolves it: its pool is gone, or the
   * name is briefly unknown while the new spec is listed (nothing reached a server either way). Such
   * a call waits for the reload to be applied and resolves the name again — a few times at most
   * while edits keep coming — so it is answered against the configuration after the reload.
   */
  call(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    return afterReloads(this.d.reloads, `tool ${JSON.stringify(name)}`, (last) => this.callResolvedTool(caller, name, args, opts, last));
  }

  private async callResolvedTool(caller: string, name: string, args: JsonObject, opts: CallOptions, last: boolean): Promise<JsonObject> {
    const profile = this.d.profileOf(caller);
    // A name the index already knows needs no listing first: the common case, a client calling what it listed.
    const entry = this.d.tools.index(profile).find(name) ?? (await this.loadAndResolve(profile, name, opts));
    if (isSearchModeTool(entry)) return this.searchModeCall(caller, profile, entry, args, opts);
    const started = this.started(entry, args, opts.timeoutMs);
    try {
      const result = await this.d.pools.callTool(entry.fingerprint, entry.downstreamName, args, opts);
      this.finished(caller, started, result.isError !== true, null);
      // An error result echoing the server's credential is masked like a JSON-RPC error (forwarded bytes were, downstream).
      return result.isError === true ? secretRedactor.value(result) : result;
    } catch (e) {
      // An attempt that will be retried on the new pool is not part of the caller's history.
      if (last || !(e instanceof PoolGoneError)) this.finished(caller, started, false, e instanceof Error ? e.message : String(e));
      throw markDispatched(e);
    }
  }

  /**
   * The same call on the promise-free lane (decision 46), when nothing in it can wait: the name is in the
   * index, no reload is being applied, the tool is no search-mode tool and its pool has a free slot on a
   * session that writes straight to its server. Undefined — nothing started — sends the call to `call`.
   */
  start(caller: string, name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall | undefined {
    const start = this.d.pools.startToolCall;
    if (!start || !this.d.reloads.settled) return undefined;
    const entry = this.d.tools.index(this.d.profileOf(caller)).find(name);
    if (!entry || isSearchModeTool(entry)) return undefined;
    const started = this.started(entry, args, opts.timeoutMs);
    return start.call(this.d.pools, entry.fingerprint, entry.downstreamName, args, opts, {
      result: (result) => {
        this.finished(caller, started, result.isError !== true, null);
        done.result(result.isError === true ? secretRedactor.value(result) : result);
      },
      error: (e) => {
        this.finished(caller, started, false, e.message);
        done.error(markDispatched(e) as Error);
      },
    });
  }

  /** The call's history record and its log line: one place for both lanes. */
  private finished(caller: string, s: StartedRecord, success: boolean, error: string | null): void {
    this.d.history.record(caller, recordOf(s, success, error));
    // An error result (isError) is the tool's answer; a thrown error means no answer came.
    const outcome = success ? 'ok' : error === null ? 'error result' : 'failed';
    const durationMs = Date.now() - s.at;
    this.d.log('info', 'tool call', {
      caller,
      tool: s.entry.name,
      server: s.entry.server,
      fingerprint: s.entry.fingerprint,
      outcome,
      durationMs,
      message: `${caller} called ${s.entry.name}: ${outcome} in ${durationMs} ms`,
    });
  }

  private started(entry: ToolEntry, args: JsonObject, timeoutMs: number | undefined): StartedRecord {
    return { at: Date.now(), seq: ++this.callSeq, entry, args, timeoutMs };
  }

  /** The search tool is answered here; the call tool becomes a call of the tool it names. */
  private searchModeCall(caller: string, profile: string, entry: ToolEntry, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    const settings = this.d.tools.profile(profile)?.toolSearch;
    const snapshot = this.d.tools.index(profile).snapshot();
    if (!settings)
      return Promise.resolve(toolError(`profile "${viewProfileName(profile)}" is not in tool search mode any more; list the tools again`));
    if (entry.name === SEARCH_TOOL) return Promise.resolve(this.toolSearch.search(snapshot, settings, args));
    const asked = this.toolSearch.target(args);
    if ('error' in asked) return Promise.resolve(asked.error);
    return this.call(caller, asked.target.name, asked.target.arguments, opts);
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
   * listed, try those servers again (within the same bounds) before answering, and say which ones failed.
   */
  private async resolveTool(profile: string, name: string, opts: CallOptions): Promise<ToolEntry> {
    const idx = this.d.tools.index(profile);
    try {
      return idx.resolve(name);
    } catch {
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

/** What the history needs of a call when it starts; the record is made once, when the call ends. */
interface StartedRecord {
  at: number;
  seq: number;
  entry: ToolEntry;
  args: JsonObject;
  timeoutMs: number | undefined;
}

/** One object literal per call: spreading a record made at the start cost a few percent of the core's CPU. */
function recordOf(s: StartedRecord, success: boolean, error: string | null): ToolCallRecord {
  return {
    timestamp: new Date(s.at).toISOString(),
    req_id: `${s.seq}`,
    server: s.entry.server,
    tool: s.entry.downstreamName,
    parameters: s.args,
    timeout: s.timeoutMs ?? null,
    success,
    error,
  };
}

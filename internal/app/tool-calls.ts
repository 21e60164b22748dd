import type { CallOptions } from '../domain/control.js';
import { McpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { ToolEntry } from '../domain/tool.js';
import type { CallerHistories } from '../domain/history/tool-call-history.js';
import { SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import type { ToolService } from './tool-service.js';
import { isSearchModeTool, toolError, ToolSearchCalls } from './tool-search-calls.js';

/** Attempts of a call whose pool a reload removed meanwhile (each after that reload is applied). */
const POOL_GONE_ATTEMPTS = 4;

/** Errors of calls that reached the pool: never retried as "raced a reload" (the server may have run them). */
const reachedPool = new WeakSet<object>();
function markDispatched(e: unknown): unknown {
  if (typeof e === 'object' && e !== null && !(e instanceof PoolGoneError)) reachedPool.add(e);
  return e;
}
function dispatched(e: object): boolean {
  return reachedPool.has(e);
}

/**
 * Reloads kept replacing the spec of the tool's server while the call resolved it: nothing reached a
 * server, and it is the configuration changing (not the caller's arguments) that is to blame.
 */
function reloadRaceError(name: string, attempts: number, e: unknown): McpdError {
  const why = e instanceof Error ? e.message : String(e);
  return new McpdError(
    'UNAVAILABLE',
    `tool "${name}" could not be resolved: the configuration changed (reload) while the call resolved it, ${attempts} times in a row; ` +
      `nothing was sent to a server. Retry once the edits settle (last error: ${why})`,
  );
}

/** What a call needs to know of reloads to tell "raced a reload" from "no such tool". */
export interface ReloadProgress {
  /** How many store applications have begun. */
  readonly generation: number;
  /** No application is under way (the tool index names no pool a reload removed). */
  readonly settled: boolean;
  /** Settles when the application under way, and every earlier one, has ended. */
  applied(): Promise<void>;
}

export interface ToolCallDeps {
  pools: PoolPort;
  store: StoreState;
  tools: ToolService;
  history: CallerHistories;
  reloads: ReloadProgress;
  profileOf(caller: string): string;
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
  async call(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    const { reloads } = this.d;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= POOL_GONE_ATTEMPTS;
      const generation = reloads.generation;
      // A call that starts while a reload is being applied resolves against the index of the old
      // store, whose pools that reload already removed: it raced the reload as much as one overtaken by it.
      const settled = reloads.settled;
      try {
        return await this.callResolvedTool(caller, name, args, opts, last);
      } catch (e) {
        const raced =
          e instanceof PoolGoneError ||
          (e instanceof McpdError && e.reason === 'NOT_FOUND' && !dispatched(e) && (!settled || reloads.generation !== generation));
        if (!raced) throw e;
        if (last) throw reloadRaceError(name, attempt, e);
        await reloads.applied();
      }
    }
  }

  private async callResolvedTool(caller: string, name: string, args: JsonObject, opts: CallOptions, last: boolean): Promise<JsonObject> {
    const profile = this.d.profileOf(caller);
    await this.d.tools.ensureLoaded(profile);
    const entry = await this.resolveTool(profile, name);
    if (isSearchModeTool(entry)) return this.searchModeCall(caller, profile, entry, args, opts);
    const record = {
      timestamp: new Date().toISOString(),
      req_id: `${++this.callSeq}`,
      server: entry.server,
      tool: entry.downstreamName,
      parameters: args,
      timeout: opts.timeoutMs ?? null,
    };
    try {
      const result = await this.d.pools.callTool(entry.fingerprint, entry.downstreamName, args, opts);
      this.d.history.record(caller, { ...record, success: result.isError !== true, error: null });
      return result;
    } catch (e) {
      // An attempt that will be retried on the new pool is not part of the caller's history.
      if (last || !(e instanceof PoolGoneError)) {
        this.d.history.record(caller, { ...record, success: false, error: e instanceof Error ? e.message : String(e) });
      }
      throw markDispatched(e);
    }
  }

  /** The search tool is answered here; the call tool becomes a call of the tool it names. */
  private searchModeCall(caller: string, profile: string, entry: ToolEntry, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    const settings = this.d.store.current.profiles.get(profile)?.toolSearch;
    const snapshot = this.d.tools.index(profile).snapshot();
    if (!settings) return Promise.resolve(toolError(`profile "${profile}" is not in tool search mode any more; list the tools again`));
    if (entry.name === SEARCH_TOOL) return Promise.resolve(this.toolSearch.search(snapshot, settings, args));
    const asked = this.toolSearch.target(args);
    if ('error' in asked) return Promise.resolve(asked.error);
    return this.call(caller, asked.target.name, asked.target.arguments, opts);
  }

  /**
   * A call is explicit demand: when the name is unknown and some server of the profile could not be
   * listed, try those servers again before answering, and say which ones failed.
   */
  private async resolveTool(profile: string, name: string): Promise<ToolEntry> {
    const idx = this.d.tools.index(profile);
    try {
      return idx.resolve(name);
    } catch (e) {
      if (this.d.tools.failuresFor(profile).length === 0) throw e;
      await this.d.tools.ensureLoaded(profile, { retryFailed: true });
      try {
        return idx.resolve(name);
      } catch (again) {
        const failed = this.d.tools.failuresFor(profile);
        if (failed.length === 0 || !(again instanceof McpdError)) throw again;
        throw new McpdError(again.reason, `${again.message}; servers that could not be listed: ${failed.join('; ')}`);
      }
    }
  }
}

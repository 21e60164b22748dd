import { McpdError } from '../../../shared/errors.js';
import type { DownstreamSession } from '../../../contract/model/downstream.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import type { JsonObject } from '../../../shared/json.js';
import type { Instance } from './instance.js';
import { suspendedError } from './messages.js';
import { MetadataCache } from './metadata-cache.js';
import type { PoolScope } from './pool-scope.js';
import { UI_EXTENSION } from '../../../contract/model/mcp-apps.js';

/**
 * The pool's listing: tools, capabilities and server info kept in a cache that answers while no
 * instance runs, one shared fetch on a miss, and coalesced refreshes on list_changed.
 */
export class ToolListing {
  readonly meta = new MetadataCache();
  /** Instances with a tools refresh running, and whether another list_changed came in meanwhile. */
  private readonly refreshing = new Map<Instance, { again: boolean }>();
  /** The extensions last reported for this pool (reportExtensions): a line per change, not per instance. */
  private reportedExtensions = '';

  constructor(
    private readonly scope: PoolScope,
    /** Lists the tools through an admitted call (starting an instance, cause 'metadata', if none runs). */
    private readonly listViaCall: () => Promise<DownstreamTool[]>,
    /** Where a session's tools/list pages report their caching hints. */
    private readonly pageSeen: (session: DownstreamSession) => (params: JsonObject, page: JsonObject) => void,
    /** The cached list's caching hints say it is stale, and an instance runs to list it again. */
    private readonly stale: () => boolean,
  ) {}

  /**
   * Cached tool list; on a miss one shared fetch starts an instance (cause 'metadata') if none runs. A list
   * whose TTL ran out is listed again before it is served (list-freshness.ts says when).
   */
  async tools(signal?: AbortSignal): Promise<DownstreamTool[]> {
    const { meta, scope } = this;
    if (meta.tools && !this.stale()) return meta.tools;
    if (scope.suspendedReason) throw suspendedError(scope.spec, scope.suspendedReason);
    if (!meta.inflight) {
      const seq = meta.nextSeq();
      const fetch = this.listViaCall().then((tools) => this.store(tools, seq));
      meta.inflight = quiet(fetch.finally(() => (meta.inflight = undefined)));
    }
    return raceSignal(meta.inflight, signal, () => new McpdError('CANCELLED', `listing tools of server ${scope.spec.name} was cancelled`));
  }

  /**
   * The server wants (more) sign-in: its cached tools are not offered any more (docs/auth.md: such a
   * server is left out of tool listings). The manager hears of the change and lists again, which fails
   * until `mcpdctl auth` has run and then brings the tools back.
   */
  signInLost(): void {
    const { meta } = this;
    if (!meta.tools) return;
    meta.forgetTools();
    this.scope.deps.events.toolsChanged(this.scope.fingerprint);
  }

  /**
   * A session attached: keep what it says about itself, and list it unless a listing is coming. A new
   * instance's own first listing replaces the cached one (the cache serves listings only while no instance
   * runs): a restarted server that changed its tools without list_changed is seen, and its pins checked.
   */
  attached(inst: Instance, session: DownstreamSession): void {
    const { meta, scope } = this;
    meta.capabilities = session.capabilities;
    meta.serverInfo = session.serverInfo;
    this.reportExtensions(inst, session.capabilities);
    if (!meta.inflight) this.refresh(inst);
    if (meta.listsRestored) {
      // The server may have changed since the lists were saved (decision 32): now that it runs, they are listed again.
      meta.listsRestored = false;
      scope.deps.events.listsToVerify(scope.fingerprint);
    }
  }

  /**
   * Extensions a server declares (`capabilities.extensions`, e.g. skills) do not reach clients: the core
   * routes no extension method to a server, so offering one would half-forward it. Said once per pool, at
   * info: the server works without them, and the line says why they are missing. The tasks extension
   * clients see is the core's own (hosted tasks), not the server's. MCP Apps' is not one of them: it has
   * no methods (an app talks to its host), and its tools and `ui://` resources pass through as they are.
   */
  private reportExtensions(inst: Instance, capabilities: JsonObject): void {
    const ext = capabilities.extensions;
    const declared = ext !== null && typeof ext === 'object' && !Array.isArray(ext) ? Object.keys(ext).sort() : [];
    const names = declared.filter((n) => n !== UI_EXTENSION);
    const key = names.join(',');
    if (key === '' || key === this.reportedExtensions) return;
    this.reportedExtensions = key;
    const { scope } = this;
    scope.log(
      'info',
      'extensions.dropped',
      `server ${scope.spec.name} declares the extension${names.length > 1 ? 's' : ''} ${names.join(', ')}; mcpd does not route extension methods to servers, so clients are not offered ${names.length > 1 ? 'them' : 'it'} (tasks are hosted by the core itself)`,
      inst,
      { extensions: names },
    );
  }

  /**
   * A list_changed re-lists the instance's tools. A storm of them is coalesced: one listing at a time
   * per instance, plus one more after it when notifications arrived meanwhile (the running listing
   * may predate their change) — never one request per notification.
   */
  refresh(inst: Instance): void {
    const running = this.refreshing.get(inst);
    if (running) {
      running.again = true;
      return;
    }
    const session = inst.session;
    if (!session) return;
    const { meta, scope } = this;
    const state = { again: false };
    this.refreshing.set(inst, state);
    const seq = meta.nextSeq();
    const fetch = session.listTools({ onPage: this.pageSeen(session) }).then(
      (tools) => this.store(tools, seq),
      (err: Error) => {
        scope.log('warning', 'tools.refresh_failed', `listing tools of server ${scope.spec.name} failed: ${err.message}`, inst);
        throw err;
      },
    );
    if (!meta.inflight) meta.inflight = quiet(fetch.finally(() => (meta.inflight = undefined)));
    const settled = () => {
      this.refreshing.delete(inst);
      if (state.again && inst.session === session) this.refresh(inst);
    };
    fetch.then(settled, settled);
  }

  /** Keeps a fetch's result unless a newer one landed first; a change is reported to the manager. */
  private store(tools: DownstreamTool[], seq: number): DownstreamTool[] {
    if (this.meta.setTools(tools, seq)) this.scope.deps.events.toolsChanged(this.scope.fingerprint);
    return this.meta.tools ?? tools;
  }
}

/** Marks a shared promise as handled; whoever awaits it still sees the rejection. */
function quiet<T>(p: Promise<T>): Promise<T> {
  // Ignored here only: every awaiter of the shared promise gets the rejection itself.
  p.catch(() => {});
  return p;
}

function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

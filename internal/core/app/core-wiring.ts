import { ToolPins } from './tool-pins.js';
import { itemPinsSet } from './item-pins.js';
import { ListingBudget } from './listing-budget.js';
import type { ControlApi } from '../../contract/control/control.js';
import type { PolicyQuota } from '../../contract/model/policy.js';
import { profileFor } from '../../contract/model/profile.js';
import type { CallerHistories } from '../domain/history/tool-call-history.js';
import type { AreaDeps, CoreLog } from './area-deps.js';
import { ClientRequests } from './client-requests.js';
import { ContextService } from './context-service.js';
import { LogService, type LogTelemetry } from './log-service.js';
import type { PoolPort } from './pool-port.js';
import { PromptService } from './prompt-service.js';
import { ResourceService } from './resource-service.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import type { StoreState } from './store-state.js';
import { ToolService } from './tool-service.js';
import type { ReloadProgress } from './reload-retry.js';

export interface CoreOptions {
  version: string;
  socket: string;
  pools: PoolPort;
  store: StoreState;
  log: CoreLog;
  /** The log bus `log` is teed into; absent = the log service keeps a private one. */
  telemetry?: LogTelemetry;
  /** Runs the process's graceful stop (the Stop RPC asks for it); absent = only `beginStop` happens. */
  requestStop?: () => void;
  /** The store's state directory: tool pins live there; absent = tools are not pinned. */
  stateDir?: string;
  /** The door as the SMCP Computers see it (built after the core, asked for when one starts). */
  smcpFace: () => ControlApi;
  /** The policy's quotas in use (callers.yaml `policies:` with `rate:`), for status; absent = none. */
  policyQuotas?: () => PolicyQuota[];
}

/** The tool cache over the pools, following the loaded store and every pool's tools/list_changed. */
export function wireTools(o: CoreOptions): ToolService {
  const budget = new ListingBudget(() => o.store.current.runtime.listingBudgetSeconds * 1000);
  const tools = new ToolService(
    o.pools,
    o.store.current.runtime.snapshotRetentionSeconds,
    (msg, fields) => o.log('warning', msg, fields),
    budget,
  );
  tools.applyStore(o.store.current);
  if (o.stateDir) {
    const pins = new ToolPins(
      o.stateDir,
      (server) => tools.pinsChanged(server),
      (msg, fields) => o.log('warning', msg, fields),
    );
    pins.watch();
    tools.usePins(pins);
  }
  // Fire-and-forget: the tool cache's loads never reject: a failed listing is recorded and logged.
  o.pools.onToolsChanged((fp) => void tools.invalidate(fp));
  return tools;
}

/** The control-plane areas besides tools, each built from the same AreaDeps. */
export interface Areas {
  /** One hub of downstream subscriptions for resources/subscribe callers and the context channels alike. */
  subscriptions: ResourceSubscriptions;
  resources: ResourceService;
  prompts: PromptService;
  logs: LogService;
  context: ContextService;
  clientRequests: ClientRequests;
}

/** `reloads`: prompts/get, completion and resources/read that raced a store application resolve again after it. */
export function wireAreas(o: CoreOptions, tools: ToolService, history: CallerHistories, reloads?: ReloadProgress): Areas {
  const deps: AreaDeps = {
    pools: o.pools,
    store: o.store,
    tools,
    listingBudget: tools.listingBudget,
    history,
    profileOf: (caller) => profileFor(o.store.current, caller),
    log: o.log,
    reloads,
  };
  // Approvals made by mcpdctl or the dashboard re-admit a server's items; the services exist by then.
  let prompts: PromptService | undefined;
  let resources: ResourceService | undefined;
  if (o.stateDir)
    deps.itemPins = itemPinsSet(
      o.stateDir,
      (area) => (area === 'prompts' ? prompts?.pinsChanged() : resources?.pinsChanged()),
      (msg, fields) => o.log('warning', msg, fields),
    );
  const subscriptions = new ResourceSubscriptions(o.pools, o.log);
  resources = new ResourceService(deps, subscriptions);
  prompts = new PromptService(deps, resources);
  return {
    subscriptions,
    resources,
    prompts,
    // Downstream stderr and notifications/message become log entries there, attributed to the server.
    logs: new LogService(deps, o.telemetry),
    // The channels decide a server by what the resource listings know of it (from disk after a restart).
    context: new ContextService(deps, subscriptions, (fp) => resources.knownUris(fp)),
    clientRequests: clientRequestsOf(o),
  };
}

/** The router of servers' requests, told when a caller's call ends unanswered so it withdraws that call's questions. */
function clientRequestsOf(o: CoreOptions): ClientRequests {
  const router = new ClientRequests({
    callersOf: (instanceId) => o.pools.callersOf?.(instanceId) ?? [],
    lendSlot: (instanceId) => o.pools.lendSlot?.(instanceId) ?? (() => undefined),
    clientAsked: (instanceId) => o.pools.clientAsked?.(instanceId) ?? (() => {}),
    notifyServers: (fps, method, params) => o.pools.notifyServers?.(fps, method, params) ?? 0,
    fingerprintsOf: (caller) => fingerprintsOf(o.store, profileFor(o.store.current, caller).name),
    log: o.log,
  });
  o.pools.onCallAbandoned?.((_fp, instanceId, key) => router.callAbandoned(instanceId, key));
  return router;
}

/** Pools that serve a profile (a spec's references are "profile/server"). */
function fingerprintsOf(store: StoreState, profile: string): string[] {
  return [...store.specs()].filter(([, ref]) => ref.references.some((r) => r.startsWith(`${profile}/`))).map(([fp]) => fp);
}

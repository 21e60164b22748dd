import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createLauncher } from '../infra/mcp/index.js';
import { OAuthStore } from '../../contract/oauth/token-store.js';
import { stateDirFor, storeFolder } from '../../launch/state-dir.js';
import { MetadataStore, PoolManager } from '../infra/scheduler/index.js';
import { watchStore } from '../infra/catalog/watch-store.js';
import { SessionTally } from '../infra/rpc/session-tally.js';
import { startControlServer, type ControlServer } from '../infra/rpc/control-server.js';
import { socketIsLive } from '../../contract/session/socket-path.js';
import { storeDefaultSocket } from '../../launch/store-socket.js';
import { coreEnvironment, type CoreEnvironment } from './core-environment.js';
import { claimSocketPath, claimStore, type StartLock } from '../infra/rpc/start-lock.js';
import { readCoreRecord, removeCoreRecord, writeCoreRecord } from '../../launch/core-record.js';
import { createLogger } from '../infra/telemetry/logger.js';
import { stderrLines } from '../infra/telemetry/stderr-lines.js';
import { Core } from './core.js';
import { CoreDoor } from './door/door.js';
import type { Interceptor } from './door/interceptor.js';
import { tieringInterceptor } from './door/tiering.js';
import { admissionInterceptor } from './door/admission.js';
import { historyInterceptor } from './door/history.js';
import { auditInterceptor } from './door/audit.js';
import { AuditWriter } from '../infra/audit/audit-writer.js';
import { auditFileIn } from '../../contract/audit/audit-files.js';
import { Policy, policyInterceptor } from './door/policy.js';
import { metricsInterceptor } from './door/metrics.js';
import type { Metrics } from '../infra/telemetry/metrics.js';
import type { CoreLog } from './area-deps.js';
import type { AuditSettings } from '../../contract/model/audit-settings.js';
import { must } from '../../shared/must.js';
import { keepRunningOnUnhandledRejections } from './last-resort.js';
import { dashboardCore } from './dashboard-core.js';
import { Dashboard } from '../infra/dashboard/dashboard.js';
import { Observability } from './log-observability.js';
import { StoreState } from './store-state.js';
import { WriteBatcher } from '../../shared/jsonrpc/turn-writes.js';
import { packageVersion } from '../../shared/version.js';
import { UI_EXTENSION, UI_EXTENSION_SETTINGS } from '../../contract/model/mcp-apps.js';
import { appOnlyInterceptor } from './door/app-only.js';

export interface RunningCore {
  core: Core;
  /** The door every face is given (tests enter it as a face would). */
  door: CoreDoor;
  /** The pools, metered (operator actions, as the dashboard takes them). */
  pools: PoolManager;
  server: ControlServer;
  /** The audit log's writer; absent when runtime.yaml turns the log off. */
  audit: AuditWriter | undefined;
  stop(): Promise<void>;
}

export interface CoreRunOptions {
  configDir: string;
  socket?: string;
  env?: NodeJS.ProcessEnv;
  /** Called when a stop the control plane asked for (Stop RPC) has finished; the process should exit. */
  onStopped?: () => void;
}

/** The composition root: store → launcher → pools → core → control server → watcher. */
export async function runCore(o: CoreRunOptions): Promise<RunningCore> {
  const env = o.env ?? process.env;
  // Every core log entry goes to stderr and onto the log bus (StreamLogs, MCP logging, metrics),
  // the store's own messages (edits rejected, applied) included.
  const obs = new Observability({ env });
  const boot = obs.tee(createLogger('core'));
  // The user's login environment is asked for at once (a shell's profile takes a moment), used from the
  // store's first load on: servers get the same variables whichever client started this core.
  const resolving = coreEnvironment(env);
  // A refused start must leave no trace: check for a running core before scaffolding a store.
  await refuseIfServed(o, env);
  // Servers keep state under the store's state directory (the default store points server-memory
  // there); few servers create missing directories themselves.
  const stateDir = stateDirFor(o.configDir, env);
  mkdirSync(stateDir, { recursive: true });
  const storeLock = await claimStore(stateDir, async () => secondCore(o.configDir, stateDir));
  try {
    return await openAndServe(o, { obs, boot, env, serverEnv: await resolving, stateDir, storeLock });
  } catch (e) {
    await storeLock.release();
    throw e;
  }
}

/** The refusal of a second core on a store: it names the first, and how to reach or stop it. */
function secondCore(configDir: string, stateDir: string): string {
  const first = readCoreRecord(stateDir);
  const store = storeFolder(configDir);
  if (!first) return `another mcpd is starting on the store ${store}; wait for it (mcpdctl status), or stop it first`;
  return `another mcpd (pid ${first.pid}) already serves the store ${store} on ${first.socket}; use that one (mcpdctl --socket ${first.socket} status), or stop it first (mcpdctl --socket ${first.socket} stop)`;
}

interface Opening {
  obs: Observability;
  boot: ReturnType<Observability['tee']>;
  env: NodeJS.ProcessEnv;
  /** What `${VAR}` and servers' base variables come from (core-environment.ts). */
  serverEnv: CoreEnvironment;
  stateDir: string;
  storeLock: StartLock;
}

/** With the store ours: load it, claim the socket, serve. */
async function openAndServe(o: CoreRunOptions, { obs, boot, env, serverEnv, stateDir, storeLock }: Opening): Promise<RunningCore> {
  const store = await StoreState.open(resolve(o.configDir), serverEnv.env, boot, serverEnv.lookedIn);
  const runtime = store.current.runtime;
  const log = obs.adopt(store, createLogger('core', runtime.logLevel));
  const unguard = keepRunningOnUnhandledRejections(log);
  const socket = o.socket || runtime.socket || env.MCPD_SOCKET || storeDefaultSocket(o.configDir, env);
  // Refuse before starting anything when another core owns the socket, or is starting on it: the lock
  // is held until the socket is removed at stop (or this process dies).
  const lock = await claimSocketPath(socket);
  try {
    return await serveCore(o, { obs, store, log, unguard, socket, stateDir, serverEnv, lock: both(lock, storeLock) });
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/** The socket's lock and the store's, released together (the socket's first: it is the one clients see). */
function both(socket: StartLock, store: StartLock): StartLock {
  return { release: () => socket.release().then(() => store.release()) };
}

interface Prepared {
  obs: Observability;
  store: StoreState;
  log: ReturnType<Observability['adopt']>;
  unguard: () => void;
  socket: string;
  stateDir: string;
  serverEnv: CoreEnvironment;
  lock: StartLock;
}

/** Everything after the socket is ours: pools, core, control server, watcher, dashboard. */
async function serveCore(
  o: CoreRunOptions,
  { obs, store, log, unguard, socket, stateDir, serverEnv, lock }: Prepared,
): Promise<RunningCore> {
  const runtime = store.current.runtime;
  // Every server may ask for sampling, elicitation and roots; the core routes each such request to the
  // caller session it is serving, whose client answers or the server gets a clear error at once.
  // They also hear that mcpd hosts MCP Apps (its dashboard renders them; decision 71): a server that registers
  // its app tools only for such hosts registers them, and the door hides the app-only ones from models.
  // One batcher for the process: a read from a server's stdout holds the Session writes it causes, and back.
  const batcher = new WriteBatcher();
  const launcher = createLauncher({
    batcher,
    clientCapabilities: {
      sampling: {},
      elicitation: {},
      roots: { listChanged: true },
      extensions: { [UI_EXTENSION]: UI_EXTENSION_SETTINGS },
    },
    // PATH, HOME, LANG… of the user's login environment, not only of the client that started the core.
    baseEnv: serverEnv.env,
    // HTTP servers' OAuth tokens, written by `mcpdctl auth` and refreshed here (docs/auth.md).
    oauth: OAuthStore.inStateDir(stateDir),
    // Servers are launched only from core.start() on, after `core` is assigned below.
    onServerRequest: (spec, instanceId, method, params, signal) => core.clientRequests.handle(spec, instanceId, method, params, signal),
    // A sandboxed server never sees the store, the state (tokens, caches) or the socket's folder (dashboard token).
    sandboxProtectedPaths: () => [store.current.dir, stateDir, dirname(resolve(socket))],
    // npx packages are pinned to the version and integrity they first resolved to (mcpdctl update accepts a change).
    stateDir,
    // A package pinned or started unchecked, a server restarted as a 2025-11-25 one, the reaper restarted.
    onEvent: (message) => log('info', message),
  });
  const pools = obs.meter(
    new PoolManager({
      launcher,
      runtime,
      // Listings after a restart come from here: the servers start only when called.
      metadataStore: new MetadataStore(join(stateDir, 'metadata-cache'), (message, fields) => log('warning', message, fields)),
      log: (e) => log(e.level, e.event, { fingerprint: e.fingerprint, instance: e.instance, message: e.message, ...e.fields }),
    }),
  );
  let door: CoreDoor | undefined;
  // callers.yaml `policies:` (docs/policy.md): follows the running store, counted in the metrics.
  const policy = new Policy({
    store: () => store.current,
    onStoreChange: (listener) => store.onAdopt(listener),
    decided: (rule, effect) => obs.metrics.policyDecision(rule, effect),
  });
  const core = new Core({
    version: packageVersion(),
    socket,
    pools,
    store,
    log,
    telemetry: obs.telemetry(),
    // The Stop RPC: the same graceful stop as SIGTERM; the process exits once it is done.
    requestStop: () => void stop().then(o.onStopped, o.onStopped),
    stateDir,
    smcpFace: () => must(door, 'the door').for('smcp'),
    policyQuotas: () => policy.quotas(),
  });
  const audit = auditWriter(runtime.audit, stateDir, log);
  door = new CoreDoor(core, doorInterceptors(core, policy, log, obs.metrics, audit));
  const sessions = new SessionTally();
  obs.attach(core, sessions);
  const server = await startControlServer(door, socket, {
    log,
    tally: sessions,
    maxOutboundBytes: runtime.sessionOutboundBytes,
    helloTimeoutMs: runtime.sessionHelloTimeoutSeconds * 1000,
    frameStallMs: runtime.sessionFrameStallSeconds * 1000,
    maxChannelsPerConnection: runtime.sessionChannelsPerConnection,
    batcher,
  });
  await core.start();
  const watcher = watchStore(
    store.current.dir,
    (r) => {
      if (!r.ok) {
        store.reject(r.issues);
        return core.publishStatus(); // status watchers see the problems at once
      }
      store.adopt(r.store, r.unresolved);
      core.applyStore().catch((e: unknown) => log('error', 'applying the new configuration failed', { error: e }));
    },
    { env: serverEnv.env, envDescription: serverEnv.lookedIn },
  );
  // "core started" promises that the store is watched: an edit made after it is seen.
  await watcher.ready;
  // The web dashboard shares the metrics listener; its token lives beside the control socket (0700).
  const dashboard = new Dashboard({
    core: dashboardCore(door.for('dashboard'), core.logs, { store, pools, socket, stateDir, audit }),
    stateDir: dirname(socket),
    log,
  });
  const metrics = await obs.serve(runtime.metricsAddress, dashboard.mount);
  if (metrics) dashboard.published(metrics);
  // Clients of this store find this core by its record, whatever socket default their environment gives.
  writeCoreRecord(stateDir, { pid: process.pid, socket: resolve(socket) });
  log('info', 'core started', {
    socket,
    config: store.current.dir,
    pid: process.pid,
    profiles: [...store.current.profiles.keys()],
    metrics: metrics ?? 'off',
  });
  // Whoever waits for the core (a supervisor, a test) watches for that line: it is not held for the window.
  stderrLines().flush();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Refuse new calls, let those in flight finish (the control plane stays up to answer them).
      log('info', 'core stopping');
      core.beginStop();
      dashboard.stopping();
      await core.drainCalls();
      obs.shuttingDown();
      await watcher.close();
      await server.close();
      await core.stop();
      // After the control plane closed: the last calls' entries are in the queue, and are written.
      await audit?.close();
      await launcher.shutdown();
      await obs.close();
      unguard();
      dashboard.close();
      removeCoreRecord(stateDir);
      // Only now, with the socket removed, may another core start on it.
      await lock.release();
    })());
  return { core, door, pools, server, audit, stop };
}

/**
 * The door's interceptors, composed once, in the order a call meets them (docs/architecture.md, "The
 * door"). Adding one is its file in door/ and its line here. Metrics and an audit log go first (they see
 * every call, refusals included), a per-caller policy after the stop's gate (a stopping core refuses before
 * asking it).
 */
function doorInterceptors(core: Core, policy: Policy, log: CoreLog, metrics: Metrics, audit: AuditWriter | undefined): Interceptor[] {
  return [
    ...(audit ? [auditInterceptor(audit)] : []),
    metricsInterceptor((face, method, outcome, s) => metrics.observeDoorCall(face, method, outcome, s)),
    admissionInterceptor(core.calls),
    policyInterceptor(policy),
    appOnlyInterceptor(),
    historyInterceptor(core.history, log),
    tieringInterceptor(),
  ];
}

/** The audit log (docs/audit.md): on unless runtime.yaml says `audit: { enabled: false }`; read at start. */
function auditWriter(settings: AuditSettings, stateDir: string, log: CoreLog): AuditWriter | undefined {
  if (!settings.enabled) return undefined;
  return new AuditWriter({
    file: auditFileIn(stateDir, settings.file),
    arguments: settings.arguments,
    maxBytes: settings.maxBytes,
    keep: settings.keep,
    warn: (message, fields) => log('warning', message, fields),
  });
}

/**
 * When the socket is known without reading the store (a flag, MCPD_SOCKET, or a store without
 * runtime.yaml, which gets the default), another core serving it refuses this start before the store
 * is read or scaffolded. A runtime.yaml socket is checked after loading, by prepareSocketPath.
 */
async function refuseIfServed(o: CoreRunOptions, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = storeFolder(o.configDir);
  const hasRuntime = existsSync(join(dir, 'runtime.yaml')) || existsSync(join(dir, 'runtime.yml'));
  const socket = o.socket || (hasRuntime ? undefined : env.MCPD_SOCKET || storeDefaultSocket(o.configDir, env));
  if (socket && (await socketIsLive(socket)))
    throw new Error(`another mcpd is already serving ${socket}; stop it first (mcpdctl status shows its pid) or pass a different --socket`);
}

/** The folder of the store: the directory itself, or the folder of a single catalog file. */

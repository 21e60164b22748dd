import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogRecord, Subscription } from '../../contract/control/control-areas.js';
import type { LogLevel } from '../../contract/model/profile.js';
import type { AuditFeed, CallerRow, ConnectInfo, DashboardCore, OperatorAction, StoreFile } from '../infra/dashboard/dashboard-port.js';
import { levelRank } from '../../contract/model/log-level.js';
import type { ControlApi } from '../../contract/control/control.js';
import type { LogService } from './log-service.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import { resourcesWithContext, toolsWithContext } from './dashboard-context.js';
import { secretRedactor } from '../../shared/redactor.js';
import { approveFromDashboard, watchPinsViews } from './pins-view.js';
import { OPERATOR } from '../../contract/areas/servers.js';

/** The gateway entry beside this build (dist/internal/core/app → dist/cmd/mcpdmcp). */
const GATEWAY = fileURLToPath(new URL('../../../cmd/mcpdmcp/main.js', import.meta.url));

/** Where the dashboard finds what it shows besides the door: the store, the pools, the sockets and state. */
export interface DashboardSources {
  store: StoreState;
  pools: PoolPort;
  socket: string;
  /** The store's state directory: tool pins are read and approved there. */
  stateDir: string;
  /** The audit log's writer; absent when it is off. */
  audit?: AuditFeed;
}

/**
 * The door (as the dashboard's face), store and pools as the dashboard sees them: what the control plane
 * offers, plus operator actions. `logs` is the core's log bus (the operator's page reads every entry).
 */
export function dashboardCore(
  core: ControlApi,
  logs: LogService,
  { store, pools, socket, stateDir, audit }: DashboardSources,
): DashboardCore {
  return {
    info: () => core.info(),
    status: () => core.status(),
    watchStatus: () => core.watchStatus(),
    listTools: (caller, cursor, size) => core.listTools(caller, cursor, size),
    // A page may be the first to look at a caller (no gateway attached yet): listing loads its servers.
    // Here and below the load's failure is ignored: the watch that follows reports what failed.
    watchTools: (caller, etag) => (
      void core.listTools(caller).catch(() => {}),
      toolsWithContext(core.watchTools(caller, etag), () => core.resources.channels(caller))
    ),
    callTool: (caller, name, args, opts) => core.callTool(caller, name, args, opts),
    // Try-it calls take their server's input requests to the page that made them (elicitation, sampling).
    clientRequests: core.clientRequests,
    // The door's surface (reads, prompts and completions pass the stop's gate there, as callTool and the
    // desktop and finder reads do); only the watches add a first listing.
    resources: {
      ...core.resources,
      watch: (caller, etag) => (void core.resources.list(caller).catch(() => {}), resourcesWithContext(core.resources.watch(caller, etag))),
    },
    prompts: {
      ...core.prompts,
      watch: (caller, etag) => (void core.prompts.list(caller).catch(() => {}), core.prompts.watch(caller, etag)),
    },
    logs,
    context: core.context,
    callers: () => callerRows(core, store),
    allLogs: (min, signal) => allLogs(logs, store, min, signal),
    storeFiles: () => storeFiles(store),
    connectInfo: (): ConnectInfo => ({ node: process.execPath, gateway: GATEWAY, configDir: store.current.dir, socket }),
    watchPins: () => watchPinsViews(stateDir),
    act: async (a) => (a.kind === 'approve-pins' ? approveFromDashboard(stateDir, a.server, a.tool) : act(core, pools, a)),
    audit,
  };
}

/** callers.yaml's callers and the attached ones (unknown callers get "default"). */
function callerRows(core: ControlApi, store: StoreState): CallerRow[] {
  const rows = new Map<string, CallerRow>();
  for (const [caller, profile] of store.current.callers) rows.set(caller, { caller, profile, sessions: 0 });
  for (const c of core.status().callers) rows.set(c.caller, { ...c });
  return [...rows.values()].sort((a, b) => a.caller.localeCompare(b.caller));
}

function allLogs(logs: LogService, store: StoreState, min: LogLevel, signal: AbortSignal): Subscription<LogRecord> {
  const rank = levelRank(min);
  return logs.bus.subscribe(
    (e) => {
      if (levelRank(e.record.level) < rank) return undefined;
      if (e.fingerprint === undefined || e.record.server) return e.record;
      return { ...e.record, server: store.specs().get(e.fingerprint)?.spec.name };
    },
    { signal, backlog: true },
  );
}

function storeFiles(store: StoreState): StoreFile[] {
  const dir = store.current.dir;
  const names = ['callers.yaml', 'runtime.yaml'];
  try {
    for (const f of readdirSync(join(dir, 'profiles')).sort()) if (/\.ya?ml$/.test(f)) names.push(`profiles/${f}`);
  } catch {
    // no profiles folder: the issues say so
  }
  const files: StoreFile[] = [];
  for (const path of names) {
    let text: string;
    try {
      text = readFileSync(join(dir, path), 'utf8');
    } catch {
      continue; // optional files
    }
    const issues = store
      .issuesNow()
      .filter((i) => sameFile(dir, i.file, path))
      .map((i) => ({ line: i.line, field: i.field, message: i.message, hint: i.hint }));
    // The page shows the files as written: literal secrets in them are masked as in status and logs.
    files.push({ path, text: secretRedactor.text(text), issues });
  }
  return files;
}

function sameFile(dir: string, issueFile: string, path: string): boolean {
  const abs = resolve(dir, issueFile);
  return relative(dir, abs) === path || (dirname(path) === '.' && basename(issueFile) === path);
}

async function act(core: ControlApi, pools: PoolPort, a: Exclude<OperatorAction, { kind: 'approve-pins' }>): Promise<unknown> {
  const missing = (what: string) => new Error(`this core's pools cannot ${what}`);
  switch (a.kind) {
    case 'reload':
      return core.reload();
    case 'resume':
      if (!pools.resume) throw missing('resume');
      return pools.resume(a.fingerprint);
    case 'restart':
      // Through the door, as `mcpdctl restart --instance` goes: the audit log records it (face `dashboard`).
      await core.servers.restart(OPERATOR, { server: a.fingerprint, instance: a.instance });
      return undefined;
    case 'stop-pool':
      if (!pools.stopPool) throw missing('stop a pool');
      return pools.stopPool(a.fingerprint);
  }
}

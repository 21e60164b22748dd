/** Shared setup for the scheduler unit tests (fake launcher + fake clock). */
import { McpdError } from '../../internal/shared/errors.js';
import { DEFAULT_RUNTIME, type RuntimeSettings } from '../../internal/contract/model/profile.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../internal/contract/model/spec.js';
import { FakeClock, settle } from './scheduler-fake-clock.js';
import { FakeLauncher } from './scheduler-fake-launcher.js';
import { PoolManager } from '../../internal/core/infra/scheduler/pool-manager.js';
import type { LogEntry } from '../../internal/core/infra/scheduler/types.js';

export const FP = 'fp-srv';

export function makeSpec(over: Partial<ServerSpec> = {}): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name: 'srv',
    transport: 'stdio',
    cmd: ['fake'],
    env: {},
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
    callTimeoutSeconds: 60,
    ...over,
  };
}

export interface Harness {
  clock: FakeClock;
  launcher: FakeLauncher;
  mgr: PoolManager;
  logs: LogEntry[];
  spec: ServerSpec;
  events(name: string): LogEntry[];
}

export async function harness(over: Partial<ServerSpec> = {}, rt: Partial<RuntimeSettings> = {}): Promise<Harness> {
  const clock = new FakeClock();
  const launcher = new FakeLauncher(clock);
  const logs: LogEntry[] = [];
  const runtime = {
    ...DEFAULT_RUNTIME,
    poolWaitSeconds: 5,
    restartBackoffMaxSeconds: 8,
    crashLoopThreshold: 3,
    crashLoopWindowSeconds: 60,
    // Periodic pings would interleave with what other tests count; the ping tests turn them on.
    pingIntervalSeconds: 0,
    ...rt,
  };
  const mgr = new PoolManager({ launcher, runtime, clock, log: (e) => logs.push(e), random: () => 0 });
  const spec = makeSpec(over);
  await mgr.reconcile(new Map([[FP, { spec, references: ['default/srv'] }]]));
  await settle();
  return { clock, launcher, mgr, logs, spec, events: (name) => logs.filter((l) => l.event === name) };
}

/** Collects a promise's outcome without awaiting it, so tests can inspect it at any point. */
export function track<T>(p: Promise<T>): { done: boolean; value?: T; error?: McpdError } {
  const box: { done: boolean; value?: T; error?: McpdError } = { done: false };
  p.then(
    (v) => Object.assign(box, { done: true, value: v }),
    (e: McpdError) => Object.assign(box, { done: true, error: e }),
  );
  return box;
}

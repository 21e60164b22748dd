import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallOptions } from '../../internal/contract/control/control.js';
import type { JsonObject } from '../../internal/shared/json.js';
import { McpdError } from '../../internal/shared/errors.js';
import { runCore, type RunningCore } from '../../internal/core/app/bootstrap.js';
import { TestWorld } from '../support/core-process.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';

/**
 * The fast `tools/call` lane (decision 46, `ControlApi.startToolCall`) and the full path (`callTool`)
 * are one doorway: on every scenario below both give the caller the same result or error and leave the
 * same history record. The core runs in this process (real store, pools and server processes), so the
 * test sees which way each call went: a lane scenario that fell back to the full path would compare
 * nothing, and fails.
 */

type Outcome = { result: JsonObject } | { error: { reason?: string; message: string } };
type Path = 'lane' | 'full';

interface Run {
  /** Resolves with what the caller got. */
  outcome: Promise<Outcome>;
  /** The lane took the call (always false for the full path). */
  lane: boolean;
  /** Cancels the call the way the Session does for its path. */
  cancel(reason: Error): void;
}

const errorOf = (e: unknown): Outcome => ({
  error: { reason: e instanceof McpdError ? e.reason : undefined, message: e instanceof Error ? e.message : String(e) },
});

/** The same call on the lane (falling back to callTool as the Session does) or on the full path. */
function start(core: RunningCore['core'], path: Path, name: string, args: JsonObject, opts: CallOptions = {}): Run {
  const caller = path; // each path its own caller: their histories are compared below
  if (path === 'lane') {
    let settle!: (o: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const call = core.startToolCall(caller, name, args, opts, { result: (result) => settle({ result }), error: (e) => settle(errorOf(e)) });
    if (call) return { outcome, lane: true, cancel: (reason) => call.cancel(reason) };
    const fallback = core.callTool(caller, name, args, opts).then((result) => ({ result }), errorOf);
    return { outcome: fallback, lane: false, cancel: () => {} };
  }
  // The full path as the Session takes it for a request with a progress token: its own signal and abort.
  const ac = new AbortController();
  const outcome = core
    .callTool(caller, name, args, { ...opts, signal: ac.signal, abort: (reason) => ac.abort(reason), onProgress: () => {} })
    .then((result) => ({ result }), errorOf);
  return { outcome, lane: false, cancel: (reason) => ac.abort(reason) };
}

/** The caller's last history record without what differs per call by design (time, sequence number). */
function lastRecord(core: RunningCore['core'], caller: Path): unknown {
  const r = core.history.get(caller).recent(1)[0];
  if (!r) return undefined;
  const { timestamp: _t, req_id: _r, ...rest } = r;
  return rest;
}

/** A server crash names the instance that died; the two paths necessarily ran on different ones. */
const sameInstance = (o: Outcome): Outcome =>
  'error' in o ? { error: { ...o.error, message: o.error.message.replace(/\b(instance|pid)[ =]?[\w-]+/g, '$1 X') } } : o;

describe('the tools/call lane and the full path give identical results', () => {
  let world: TestWorld;
  let running: RunningCore;

  beforeAll(async () => {
    world = new TestWorld({
      // One instance at a time, restarted at once after a crash: both paths meet the same server.
      'profiles/default.yaml': profile(
        echoServer('fx', { idleSeconds: 300, callTimeoutSeconds: 60, maxInstances: 1 }, { FIXTURE_FAULT_TOOLS: '1' }),
      ),
      'runtime.yaml': 'shutdownGraceSeconds: 2\nmetricsAddress: ""\nlogLevel: error\ncrashLoopThreshold: 100\n',
      'callers.yaml': 'callers: {}\n',
    });
    mkdirSync(dirname(world.socket), { recursive: true, mode: 0o700 });
    running = await runCore({ configDir: world.configDir, socket: world.socket, env: world.env() });
    // Warm: the lane serves calls to a ready instance with a free slot.
    await running.core.callTool('lane', 'fx__echo', {}, {});
  });

  afterAll(async () => {
    await running?.stop();
    await world?.cleanup();
  });

  /** Both paths on one scenario; the lane must really have taken its call. */
  async function both(scenario: (path: Path) => Promise<{ run: Run; outcome: Outcome }>): Promise<Record<Path, Outcome>> {
    const out = {} as Record<Path, Outcome>;
    for (const path of ['lane', 'full'] as const) {
      // A ready instance first (after a crash the pool starts a new one on demand).
      await running.core.callTool('warm', 'fx__echo', {}, {});
      const { run, outcome } = await scenario(path);
      expect(run.lane, `${path} took the lane`).toBe(path === 'lane');
      out[path] = outcome;
    }
    expect(lastRecord(running.core, 'lane')).toEqual(lastRecord(running.core, 'full'));
    return out;
  }

  const scenarios: [string, (path: Path) => Promise<{ run: Run; outcome: Outcome }>, (o: Outcome) => void][] = [
    [
      'success',
      async (path) => {
        const run = start(running.core, path, 'fx__echo', { a: 1, text: 'é' });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(o).toMatchObject({ result: { structuredContent: { a: 1, text: 'é' } } }),
    ],
    [
      'error from the server',
      async (path) => {
        const run = start(running.core, path, 'fx__fail', { message: 'no such row' });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(JSON.stringify(o)).toMatch(/no such row/),
    ],
    [
      'cancel',
      async (path) => {
        const run = start(running.core, path, 'fx__hang', {});
        await waitFor('the hang to reach the server', () => running.core.status().inFlightCalls === 1);
        run.cancel(new Error('cancelled by the client'));
        return { run, outcome: await run.outcome };
      },
      (o) =>
        expect(o).toMatchObject({
          error: { message: expect.stringMatching(/was cancelled by the caller; the server was told to stop/) as unknown },
        }),
    ],
    [
      'deadline',
      async (path) => {
        const run = start(running.core, path, 'fx__hang', {}, { timeoutMs: 300 });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(o).toMatchObject({ error: { reason: 'DEADLINE_EXCEEDED' } }),
    ],
    [
      'server death',
      async (path) => {
        const run = start(running.core, path, 'fx__crash', {});
        return { run, outcome: sameInstance(await run.outcome) };
      },
      (o) => expect(o).toMatchObject({ error: { reason: expect.any(String) as unknown } }),
    ],
  ];

  it.each(scenarios)('%s', async (_name, scenario, check) => {
    const out = await both(scenario);
    check(out.lane);
    expect(out.lane).toEqual(out.full);
  });

  it('stop: a new call is refused alike, and calls in flight are cut off alike at the end of the grace period', async () => {
    await running.core.callTool('warm', 'fx__echo', {}, {});
    const held = { lane: start(running.core, 'lane', 'fx__hang', {}), full: start(running.core, 'full', 'fx__hang', {}) };
    expect(held.lane.lane).toBe(true);
    await waitFor('both calls in flight', () => running.core.status().inFlightCalls === 2);
    const stopped = running.stop();
    await waitFor('the stop to begin', () => running.core.status().stopping);

    const refused = { lane: start(running.core, 'lane', 'fx__echo', {}), full: start(running.core, 'full', 'fx__echo', {}) };
    // The lane takes nothing during a stop; the call it hands back is refused by the same gate.
    expect(refused.lane.lane).toBe(false);
    const [lane, full] = await Promise.all([refused.lane.outcome, refused.full.outcome]);
    expect(lane).toMatchObject({
      error: { reason: 'UNAVAILABLE', message: expect.stringMatching(/is stopping: new calls are refused \(tools\/call\)/) as unknown },
    });
    expect(lane).toEqual(full);

    const [cutLane, cutFull] = await Promise.all([held.lane.outcome, held.full.outcome]);
    expect(cutLane).toMatchObject({
      error: { reason: 'UNAVAILABLE', message: expect.stringMatching(/did not finish within the shutdown grace period/) as unknown },
    });
    expect(cutLane).toEqual(cutFull);
    expect(lastRecord(running.core, 'lane')).toEqual(lastRecord(running.core, 'full'));
    await stopped;
  });
});

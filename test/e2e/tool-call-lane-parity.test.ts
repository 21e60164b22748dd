import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallOptions, ControlApi } from '../../internal/contract/control/control.js';
import type { JsonObject } from '../../internal/shared/json.js';
import { McpdError } from '../../internal/shared/errors.js';
import { runCore, type RunningCore } from '../../internal/core/app/bootstrap.js';
import { TestWorld } from '../support/core-process.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';

/**
 * A tool call has one path (decision 46, and the door of decision 54): the door's callback entry (`toolCall`, what the Session
 * takes for every tools/call) and its promise wrapper (`callTool` with a signal and a progress callback,
 * what gRPC and the SMCP Computer take) run the same code from the door down to the server's stdin. On
 * every scenario below both give the caller the same result or error and leave the same history record,
 * and the history's sequence numbers have no gaps (no attempt is ever started twice). The core runs in
 * this process (real store, pools and server processes), entered through its door as a face would.
 */

type Outcome = { result: JsonObject } | { error: { reason?: string; message: string } };
type Path = 'callback' | 'promise';

interface Run {
  /** Resolves with what the caller got. */
  outcome: Promise<Outcome>;
  /** Cancels the call the way its face does. */
  cancel(reason: Error): void;
}

const errorOf = (e: unknown): Outcome => ({
  error: { reason: e instanceof McpdError ? e.reason : undefined, message: e instanceof Error ? e.message : String(e) },
});

/** The same call through the door's callback entry (as the Session) or its promise wrapper (as gRPC). */
function start(door: ControlApi, path: Path, name: string, args: JsonObject, opts: CallOptions = {}): Run {
  const caller = path; // each path its own caller: their histories are compared below
  if (path === 'callback') {
    let settle!: (o: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const call = door.toolCall(caller, name, args, opts, { result: (result) => settle({ result }), error: (e) => settle(errorOf(e)) });
    return { outcome, cancel: (reason) => call.cancel(reason) };
  }
  const ac = new AbortController();
  const outcome = door
    .callTool(caller, name, args, { ...opts, signal: ac.signal, onProgress: () => {} })
    .then((result) => ({ result }), errorOf);
  return { outcome, cancel: (reason) => ac.abort(reason) };
}

/** The caller's last history record without what differs per call by design (time, sequence number). */
function lastRecord(core: RunningCore['core'], caller: Path | 'warm'): unknown {
  const r = core.history.get(caller).recent(1)[0];
  if (!r) return undefined;
  const { timestamp: _t, req_id: _r, ...rest } = r;
  return rest;
}

/** A server crash names the instance that died; the two paths necessarily ran on different ones. */
const sameInstance = (o: Outcome): Outcome =>
  'error' in o ? { error: { ...o.error, message: o.error.message.replace(/\b(instance|pid)[ =]?[\w-]+/g, '$1 X') } } : o;

describe('a tool call has one path: the callback entry and the promise wrapper give identical results', () => {
  let world: TestWorld;
  let running: RunningCore;
  let door: ControlApi;

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
    door = running.door.for('grpc');
  });

  afterAll(async () => {
    await running?.stop();
    await world?.cleanup();
  });

  /** Both paths on one scenario. */
  async function both(scenario: (path: Path) => Promise<{ run: Run; outcome: Outcome }>): Promise<Record<Path, Outcome>> {
    const out = {} as Record<Path, Outcome>;
    for (const path of ['callback', 'promise'] as const) {
      // A ready instance first (after a crash the pool starts a new one on demand).
      await door.callTool('warm', 'fx__echo', {}, {});
      const { outcome } = await scenario(path);
      out[path] = outcome;
    }
    expect(lastRecord(running.core, 'callback')).toEqual(lastRecord(running.core, 'promise'));
    return out;
  }

  /** Every record's sequence number, in the order the records were made, for all callers. */
  function sequence(): number[] {
    const all = (['warm', 'callback', 'promise'] as const).flatMap((c) => running.core.history.get(c).recent(1000));
    return all.map((r) => Number(r.req_id)).sort((a, b) => a - b);
  }

  const scenarios: [string, (path: Path) => Promise<{ run: Run; outcome: Outcome }>, (o: Outcome) => void][] = [
    [
      'a cold start: the call waits for the server to start and is resumed, not restarted',
      async (path) => {
        // The pool at zero instances: the call is parked until its server has started.
        const [pool] = running.core.status().pools;
        await running.pools.stopPool(pool!.fingerprint);
        const run = start(door, path, 'fx__echo', { cold: true });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(o).toMatchObject({ result: { structuredContent: { cold: true } } }),
    ],
    [
      'success',
      async (path) => {
        const run = start(door, path, 'fx__echo', { a: 1, text: 'é' });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(o).toMatchObject({ result: { structuredContent: { a: 1, text: 'é' } } }),
    ],
    [
      'error from the server',
      async (path) => {
        const run = start(door, path, 'fx__fail', { message: 'no such row' });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(JSON.stringify(o)).toMatch(/no such row/),
    ],
    [
      'cancel',
      async (path) => {
        const run = start(door, path, 'fx__hang', {});
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
        const run = start(door, path, 'fx__hang', {}, { timeoutMs: 300 });
        return { run, outcome: await run.outcome };
      },
      (o) => expect(o).toMatchObject({ error: { reason: 'DEADLINE_EXCEEDED' } }),
    ],
    [
      'server death',
      async (path) => {
        const run = start(door, path, 'fx__crash', {});
        return { run, outcome: sameInstance(await run.outcome) };
      },
      (o) => expect(o).toMatchObject({ error: { reason: expect.any(String) as unknown } }),
    ],
  ];

  it.each(scenarios)('%s', async (_name, scenario, check) => {
    const out = await both(scenario);
    check(out.callback);
    expect(out.callback).toEqual(out.promise);
    // One record per call that reached a tool, numbered without gaps.
    const seq = sequence();
    expect(seq).toEqual(seq.map((_, k) => k + 1));
  });

  it('stop: a new call is refused alike, and calls in flight are cut off alike at the end of the grace period', async () => {
    await door.callTool('warm', 'fx__echo', {}, {});
    const held = { lane: start(door, 'callback', 'fx__hang', {}), full: start(door, 'promise', 'fx__hang', {}) };
    await waitFor('both calls in flight', () => running.core.status().inFlightCalls === 2);
    const stopped = running.stop();
    await waitFor('the stop to begin', () => running.core.status().stopping);

    const refused = { lane: start(door, 'callback', 'fx__echo', {}), full: start(door, 'promise', 'fx__echo', {}) };
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
    expect(lastRecord(running.core, 'callback')).toEqual(lastRecord(running.core, 'promise'));
    await stopped;
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardRequest, Reply } from '../../internal/contract/dashboard/dashboard-events.js';
import { metricsUrl } from '../support/core-metrics.js';
import { coreWorld } from '../support/core-world.js';
import { echoServer } from '../support/profiles.js';

/**
 * The dashboard socket (namespace /app) fed random and malformed arguments for every request of
 * internal/contract/dashboard/dashboard-events.ts, against a real core: each request is answered with
 * an ack — a value, or an error that says what was wrong (never a raw TypeError) — the core stays up,
 * and its state is what it was. Seeded: a failure prints the seed and the shrunk case, and
 * MCPD_FUZZ_SEED=<seed> replays it.
 */
const SEED = Number(process.env.MCPD_FUZZ_SEED ?? 20_261_127);
const RUNS = 400;

/** Every request of the protocol; the type below fails to compile when one is added and not fuzzed. */
const EVENTS = [
  'hello',
  'watch',
  'unwatch',
  'call',
  'cancel',
  'read',
  'templates',
  'subscribe',
  'unsubscribe',
  'prompt',
  'complete',
  'desktop',
  'finder',
  'config',
  'connect-info',
  'action',
  'input-answer',
  'app-frame',
  'task',
  'cancel-task',
  'answer-task',
] as const satisfies readonly DashboardRequest[];
type Unfuzzed = Exclude<DashboardRequest, (typeof EVENTS)[number]>;
const everyRequestFuzzed: [Unfuzzed] extends [never] ? true : never = true;

/** An error that leaked from the code instead of naming what was wrong. */
const RAW_ERROR = /Cannot read propert|is not a function|is not iterable|undefined \(reading|Maximum call stack|\[object Object\]/;

const FIELDS = [
  'kind',
  'caller',
  'id',
  'name',
  'args',
  'uri',
  'cursor',
  'params',
  'size',
  'window',
  'keywords',
  'fileType',
  'tool',
  'taskId',
] as const;
const MORE_FIELDS = [
  'offset',
  'limit',
  'timeoutMs',
  'minLevel',
  'fingerprint',
  'instance',
  'request',
  'action',
  'content',
  'key',
  'text',
  '__proto__',
  'constructor',
  'prototype',
] as const;

const nested = (depth: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { deeper: v };
  return v;
};
/** JSON.parse makes "__proto__" an own key, as the socket's parser does with what a page sends. */
const polluter = (): unknown => JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');

/** A field value: plausible (real names, so checks past the first are reached), wrong-typed, huge, deep or hostile. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('dev', 'fx__echo', 'fx__pid', 'status', 'tools', 'logs', 'reload', 'restart', 'stop-pool', 'debug', 'mcpd://nothing', ''),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
  fc.string({ maxLength: 40 }),
  fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-1, 0, 1e300, Number.MAX_SAFE_INTEGER)),
  fc.boolean(),
  fc.constant(null),
  // Huge, yet six of them stay under the socket's 1 MB message limit (the test below goes over it on purpose).
  fc.integer({ min: 50_000, max: 150_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1, max: 1500 }).map(nested),
  fc.constant(null).map(polluter),
  fc.anything({ maxDepth: 3, maxKeys: 5 }),
);

/** The arguments of one emit: usually one object of fields, else anything, nothing or several. */
const payload: fc.Arbitrary<unknown[]> = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS, ...MORE_FIELDS), value, { maxKeys: 6 }).map((o) => [o]) },
  { weight: 2, arbitrary: value.map((v) => [v]) },
  { weight: 1, arbitrary: fc.constant<unknown[]>([]) },
  { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }) },
);

describe('the /app socket under random and malformed arguments', () => {
  const world = coreWorld({
    'profiles/default.yaml': `servers:\n${echoServer('fx', { strategy: 'singleton', idleSeconds: 300 })}`,
    'callers.yaml': 'callers: { dev: default }\n',
    'runtime.yaml': 'metricsAddress: 127.0.0.1:0\n',
  });
  let base = '';
  let authorization = '';
  const sockets: Socket[] = [];

  const connect = async (): Promise<Socket> => {
    const s = ioClient(`${base}/app`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { authorization, origin: base },
    });
    sockets.push(s);
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('connect_error', reject);
    });
    return s;
  };
  const ask = async (s: Socket, event: string, ...args: unknown[]): Promise<Reply<unknown>> =>
    (await s.timeout(30_000).emitWithAck(event, ...args)) as Reply<unknown>;
  const ok = async <T>(s: Socket, event: string, args: unknown = {}): Promise<T> => {
    const r = await ask(s, event, args);
    if (!r.ok) throw new Error(`${event}: ${r.error}`);
    return r.value as T;
  };
  /** What must survive the fuzz: the pools and their states, the store's files, a real call. */
  const state = async (s: Socket) => {
    const hello = await ok<{ info: { coreId: string }; status: { pools: { fingerprint: string; state?: string }[] } }>(s, 'hello');
    const config = await ok<{ path: string; text: string }[]>(s, 'config');
    const call = await ok<{ content: { text: string }[] }>(s, 'call', {
      id: 'probe',
      caller: 'dev',
      name: 'fx__echo',
      args: { text: 'still here' },
    });
    return { coreId: hello.info.coreId, pools: hello.status.pools.map((p) => p.fingerprint), config, echoed: JSON.stringify(call) };
  };

  beforeAll(() => {
    const metrics = metricsUrl(world) ?? '';
    base = new URL(metrics.includes('://') ? metrics : `http://${metrics}`).origin;
    const { token } = JSON.parse(readFileSync(join(world.dir, 'run', 'dashboard.json'), 'utf8')) as { token: string };
    authorization = `Bearer ${token}`;
  });
  afterAll(() => {
    for (const s of sockets) s.close();
  });

  it(`answers every request with a clear ack and keeps its state (seed ${SEED}, ${RUNS} runs)`, async () => {
    expect(everyRequestFuzzed).toBe(true);
    const page = await connect();
    const before = await state(page);
    expect(before.echoed).toContain('still here');
    // A page that watches status meanwhile: its watch must survive the other page's fuzz.
    const watcher = await connect();
    let pushes = 0;
    watcher.on('status', () => pushes++);
    await ok(watcher, 'watch', { kind: 'status' });

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...EVENTS), payload, fc.boolean(), async (event, args, withAck) => {
        if (!withAck) {
          // No ack function: nothing to answer, and nothing may break; the next request proves the socket lives.
          page.emit(event, ...args);
          expect((await ask(page, 'hello')).ok).toBe(true);
          return;
        }
        const reply = await ask(page, event, ...args);
        expect(typeof reply).toBe('object');
        if (reply.ok) return;
        expect(typeof reply.error).toBe('string');
        expect(reply.error.length).toBeGreaterThan(0);
        expect(reply.error).not.toMatch(RAW_ERROR);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );

    expect(page.connected).toBe(true);
    const after = await state(page);
    expect(after).toEqual(before);
    expect(world.coreLog.join('')).not.toMatch(/unhandled rejection|uncaught/i);
    // The watcher is still served: a reload (a real change of status) reaches it.
    const seen = pushes;
    await ok(watcher, 'action', { kind: 'reload' });
    await expect.poll(() => pushes, { timeout: 30_000 }).toBeGreaterThan(seen);
  }, 600_000);

  it('a message over the socket size limit closes only that socket; the core and a new socket are fine', async () => {
    const page = await connect();
    const closed = new Promise<string>((resolve) => page.once('disconnect', resolve));
    page.emit('call', { id: 'big', caller: 'dev', name: 'fx__echo', args: { text: 'y'.repeat(3_000_000) } });
    expect(await closed).toMatch(/transport (close|error)/);
    const fresh = await connect();
    expect(JSON.stringify(await state(fresh))).toContain('still here');
  });
});

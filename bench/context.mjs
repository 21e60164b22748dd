#!/usr/bin/env node
// Organizer benchmarks of the context channels (pure functions, from dist/):
//   organize_desktop_10k       organizeDesktop over 10,000 windows from 100 servers, 200-call history, the
//                              same collected windows every call (what GetDesktop does; memoized)
//   organize_desktop_10k_cold  the same, but every window is new to the organizer (fresh objects parsed
//                              from JSON each call, as they arrive from the servers)
//   organize_finder_100k       organizeFinder over 100,000 documents from 100 servers, keyword + paging
//   organize_finder_100k_cold  the same over a freshly parsed catalogue each call
//   organize_desktop_growth    how organizeDesktop grows: 10,000 windows against 2,500 (same 100 servers),
//                              interleaved; `ratio` is min(10k) / min(2.5k): ~4 is linear, ~16 quadratic
//                              (moved here from a timed unit test: no test asserts a time)
// Targets on a quiet machine: desktop p50 ≤ 20 ms, finder p50 ≤ 100 ms.
//
// One JSON line per case: {case, n, warmup, p50, p99, cpu_p50, baseline, baseline_p50, ratio, target_ms,
// load1, machine}. The baseline is a plain Array.prototype.sort of as many numeric keys as the case has
// items, timed in the same process interleaved with the case, so `ratio` (p50 / baseline_p50) stays
// meaningful when other processes load the machine and absolute times do not. cpu_p50 is this
// process's CPU time per call (user + system), which excludes time spent waiting for a core.
// `--smoke` uses tiny counts; `--case=NAME` runs one case (or every case starting with NAME);
// `--dist=DIR` benchmarks another build (e.g. a copy of an older dist/) instead of ./dist.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO, emit, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const only = process.argv.find((a) => a.startsWith('--case='))?.slice(7);
const distDir = process.argv.find((a) => a.startsWith('--dist='))?.slice(7) ?? join(REPO, 'dist');
const dist = (p) => import(join(distDir, 'internal/core/domain', p));
const { organizeDesktop } = await dist('desktop/organize.js');
const { syntheticWindows, syntheticHistory } = await import(join(distDir, 'test/fixtures/desktop-synthetic-windows.js'));
const { organizeFinder } = await dist('finder/organize.js');

function syntheticDocuments(count, servers) {
  const docs = new Array(count);
  const t0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < count; i++) {
    const s = i % servers;
    const ref = `folder-${i % 37}/doc-${i}.md`;
    docs[i] = {
      doc_ref: ref,
      uri: `dpe://s${s}/${encodeURIComponent(ref)}`,
      file_uri: `file:///data/s${s}/${ref}`,
      file_type: ['md', 'pdf', 'xlsx', 'csv'][i % 4],
      title: `Document ${i} about ${['budget', 'roadmap', 'hiring', 'infra', 'design'][i % 5]}`,
      page_count: 1 + (i % 40),
      keywords: [`k${i % 101}`, `topic-${i % 13}`],
      summary: `Summary of document ${i}`,
      server: `server-${String(s).padStart(3, '0')}`,
      // Every 50th document has no timestamp; the rest spread over two years.
      ...(i % 50 === 0 ? {} : { last_modified: new Date(t0 + ((i * 7919) % 63_072_000) * 1000).toISOString() }),
    };
  }
  return docs;
}

/** Deterministic pseudo-random doubles: the baseline's keys. */
function numericKeys(count) {
  const keys = new Array(count);
  let x = 88_172_645;
  for (let i = 0; i < count; i++) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    keys[i] = x / 7;
  }
  return keys;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * Runs `prepare(i)` (untimed), then the baseline sort and `fn(input)`, interleaved, warmup + n times.
 * Returns sorted wall and CPU times of `fn` and sorted wall times of the baseline.
 */
function interleaved(prepare, fn, baselineKeys, n, warmup) {
  const wall = [];
  const cpu = [];
  const base = [];
  for (let i = 0; i < warmup + n; i++) {
    const input = prepare(i);
    const b0 = nowMs();
    baselineKeys.slice().sort((a, b) => a - b);
    const b1 = nowMs();
    const c0 = cpuMs();
    const t0 = nowMs();
    fn(input, i);
    const t1 = nowMs();
    const c1 = cpuMs();
    if (i < warmup) continue;
    wall.push(t1 - t0);
    cpu.push(c1 - c0);
    base.push(b1 - b0);
  }
  const asc = (a, b) => a - b;
  return { wall: wall.sort(asc), cpu: cpu.sort(asc), base: base.sort(asc) };
}

function report(name, items, r, n, warmup, target, extra = {}) {
  const p50 = percentile(r.wall, 50);
  const b50 = percentile(r.base, 50);
  emit({
    case: name,
    n,
    warmup,
    ...extra,
    p50: round(p50),
    p99: round(percentile(r.wall, 99)),
    cpu_p50: round(percentile(r.cpu, 50)),
    baseline: `Array.prototype.sort of ${items} numbers`,
    baseline_p50: round(b50),
    ratio: round(p50 / b50),
    target_ms: target,
    load1: round(loadavg()[0]),
  });
}

const CASES = [
  'organize_desktop_10k',
  'organize_desktop_10k_cold',
  'organize_desktop_growth',
  'organize_finder_100k',
  'organize_finder_100k_cold',
];
if (only && !CASES.some((c) => c.startsWith(only))) throw new Error(`--case=${only} matches none of ${CASES.join(', ')}`);
const wanted = (name) => !only || name === only || (!CASES.includes(only) && name.startsWith(only));
const anyWanted = (prefix) => CASES.some((c) => c.startsWith(prefix) && wanted(c));

if (anyWanted('organize_desktop')) {
  const count = smoke ? 1000 : 10_000;
  const keys = numericKeys(count);
  const history = syntheticHistory(200, 100);
  // Windows arrive as JSON from the servers: the objects are parsed, with flat strings, as a
  // JSON-RPC message gives them (template-literal strings would add a flattening cost no real
  // input has).
  const json = JSON.stringify(syntheticWindows(count, 100));
  const windows = JSON.parse(json);
  if (wanted('organize_desktop_10k')) {
    // What GetDesktop does: the collected windows are the same objects from one request to the next.
    const n = smoke ? 5 : 200;
    const warm = smoke ? 2 : 30;
    const r = interleaved(
      () => windows,
      (w) => organizeDesktop(w, null, history),
      keys,
      n,
      warm,
    );
    report('organize_desktop_10k', count, r, n, warm, 20, { windows: count });
  }
  if (wanted('organize_desktop_10k_cold')) {
    // Every window is new to the organizer (first request, or all windows changed at once): each
    // run gets freshly parsed objects (parsed outside the timing).
    const n = smoke ? 5 : 60;
    const warm = smoke ? 2 : 10;
    const r = interleaved(
      () => JSON.parse(json),
      (w) => organizeDesktop(w, null, history),
      keys,
      n,
      warm,
    );
    report('organize_desktop_10k_cold', count, r, n, warm, 20, { windows: count });
  }
}

/**
 * Growth of organizeDesktop with the number of windows: large and small inputs timed in alternating
 * runs, minimums compared (the least disturbed by other load on a shared machine).
 */
function growth(small, large, n, warmup) {
  const history = syntheticHistory(200, 100);
  const inputs = [small, large].map((count) => JSON.parse(JSON.stringify(syntheticWindows(count, 100))));
  const times = [[], []];
  for (let i = 0; i < warmup + n; i++) {
    for (let k = 0; k < 2; k++) {
      const t0 = nowMs();
      const r = organizeDesktop(inputs[k], null, history);
      const t1 = nowMs();
      if (r.serverOrder.length !== 100) throw new Error(`expected 100 servers, got ${r.serverOrder.length}`);
      if (i >= warmup) times[k].push(t1 - t0);
    }
  }
  const [s, l] = times.map((t) => t.sort((a, b) => a - b));
  emit({
    case: 'organize_desktop_growth',
    n,
    warmup,
    windows: large,
    baseline_windows: small,
    min: round(l[0]),
    p50: round(percentile(l, 50)),
    baseline_min: round(s[0]),
    baseline_p50: round(percentile(s, 50)),
    ratio: round(l[0] / s[0]),
    linear_ratio: large / small,
    load1: round(loadavg()[0]),
  });
}

if (wanted('organize_desktop_growth')) {
  if (smoke) growth(250, 1000, 3, 1);
  else growth(2_500, 10_000, 30, 5);
}

if (anyWanted('organize_finder')) {
  const count = smoke ? 10_000 : 100_000;
  const keys = numericKeys(count);
  const json = JSON.stringify(syntheticDocuments(count, 100));
  const docs = JSON.parse(json); // as parsed from the servers' JSON, like the windows above
  const order = Array.from({ length: 30 }, (_, i) => `server-${String((i * 7) % 100).padStart(3, '0')}`);
  const query = (i) => (i % 2 ? { keywords: ['budget', 'k7'], offset: 20, limit: 20 } : { offset: 0, limit: 20 });
  if (wanted('organize_finder_100k')) {
    const n = smoke ? 5 : 100;
    const warm = smoke ? 2 : 10;
    const r = interleaved(
      () => docs,
      (d, i) => organizeFinder(d, query(i), order),
      keys,
      n,
      warm,
    );
    report('organize_finder_100k', count, r, n, warm, 100, { documents: count });
  }
  if (wanted('organize_finder_100k_cold')) {
    const n = smoke ? 3 : 30;
    const warm = smoke ? 1 : 4;
    const r = interleaved(
      () => JSON.parse(json),
      (d, i) => organizeFinder(d, query(i), order),
      keys,
      n,
      warm,
    );
    report('organize_finder_100k_cold', count, r, n, warm, 100, { documents: count });
  }
}

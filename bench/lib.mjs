// Shared pieces of the benchmarks: timing, percentiles, a core in a child process, clean-up.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MCPD = join(REPO, 'dist/cmd/mcpd/main.js');
export const MCPDMCP = join(REPO, 'dist/cmd/mcpdmcp/main.js');
export const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');
export const FORWARDER = join(REPO, 'bench/forwarder.mjs');
export const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** Runs `fn` warmup times, then n timed times; returns sorted milliseconds. */
export async function measure(fn, n, warmup) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    out[i] = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  return out.sort((a, b) => a - b);
}

/**
 * Measures several functions in alternating rounds (each warmed up first): n timed runs each,
 * returned as one sorted array per function.
 */
export async function interleaved(fns, n, warmup, rounds = 10) {
  for (const fn of fns) for (let i = 0; i < warmup; i++) await fn(i);
  const out = fns.map(() => []);
  const per = Math.max(1, Math.ceil(n / rounds));
  for (let done = 0; done < n; done += per) {
    const k = Math.min(per, n - done);
    for (let f = 0; f < fns.length; f++) out[f].push(...(await measure(fns[f], k, 0)));
  }
  return out.map((a) => a.sort((x, y) => x - y));
}

// A reader that stops early (`| head`) must not kill the bench between its cases: an EPIPE thrown here would
// end it before it stops the cores, gateways and servers it started, which then skew every later run.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e;
});

export function emit(record) {
  const machine = `${cpus().length}x ${cpus()[0]?.model ?? 'cpu'}; node ${process.version}`;
  process.stdout.write(`${JSON.stringify({ ...record, machine })}\n`);
}

export const round = (x) => Math.round(x * 1000) / 1000;

/** One case measured against its direct baseline (sorted milliseconds each): p50/p99 of both and the ratio. */
export function emitComparison(name, n, warmup, measured, baseline, extra = {}) {
  const p50 = percentile(measured, 50);
  const base50 = percentile(baseline, 50);
  emit({
    case: name,
    n,
    warmup,
    p50: round(p50),
    p99: round(percentile(measured, 99)),
    baseline_p50: round(base50),
    baseline_p99: round(percentile(baseline, 99)),
    added_p50: round(p50 - base50),
    ratio: round(p50 / base50),
    ...extra,
  });
}

/** CPU-profile flags for a child when `dir` is set (e.g. CORE_PROF=/tmp/prof node bench/run.mjs). */
export function profileFlags(dir) {
  const extra = process.env.CORE_NODE_FLAGS ? process.env.CORE_NODE_FLAGS.split(' ') : [];
  return [...extra, ...(dir ? ['--cpu-prof', '--cpu-prof-interval', '100', `--cpu-prof-dir=${dir}`] : [])];
}

/**
 * The Node flags every start of a core gives (internal/launch/core-node-flags.ts, from this checkout's
 * dist), so a benchmark's core runs as users' do; MCPD_BENCH_NO_CORE_FLAGS=1 leaves them out, to measure them.
 */
async function launchFlags() {
  if (process.env.MCPD_BENCH_NO_CORE_FLAGS) return [];
  return (await import(join(REPO, 'dist/internal/launch/core-node-flags.js'))).CORE_NODE_FLAGS;
}

/** A temp profile store and a core process on a private socket (the core of `dist`, by default this checkout's). */
export async function startCore(profiles, callers = 'callers: {}\n', files = {}, dist = join(REPO, 'dist')) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-'));
  const store = join(dir, 'store');
  for (const [name, text] of Object.entries(profiles)) {
    mkdirSync(join(store, 'profiles'), { recursive: true });
    writeFileSync(join(store, 'profiles', `${name}.yaml`), text);
  }
  writeFileSync(join(store, 'callers.yaml'), callers);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(store, name), text);
  const socket = join(dir, 'run', 'control.sock');
  // The core's log goes to a file, as an autostarted core's does (launch/autostart.ts): a pipe into this
  // process would have the measuring client read a log line per call, and the core wait on it.
  const logFile = join(dir, 'core.log');
  const logFd = openSync(logFile, 'a');
  const core = spawn(
    process.execPath,
    [
      ...(await launchFlags()),
      ...profileFlags(process.env.CORE_PROF),
      join(dist, 'cmd/mcpd/main.js'),
      '--config',
      store,
      '--socket',
      socket,
    ],
    {
      stdio: ['ignore', process.env.CORE_STDOUT ? 'inherit' : 'ignore', logFd],
    },
  );
  closeSync(logFd);
  const log = () => readFileSync(logFile, 'utf8');
  const { createControlClient, waitForReady } = await import(join(dist, 'internal/contract/grpc/control-client.js'));
  const client = createControlClient(socket);
  const until = Date.now() + 20_000;
  for (;;) {
    if (core.exitCode !== null) throw new Error(`core exited: ${log()}`);
    try {
      await waitForReady(client, 200);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`core did not come up: ${log()}`);
    }
  }
  return {
    dir,
    store,
    socket,
    core,
    client,
    async stop() {
      client.close();
      core.kill('SIGTERM');
      await new Promise((r) => (core.exitCode !== null ? r() : core.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function rssKb(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

export function childrenMatching(rootPid, marker) {
  // Every descendant of rootPid whose command line contains marker.
  const kids = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(Number(name), ppid);
    } catch {
      // the process exited between readdir and read: it is no descendant any more
    }
  }
  const isDesc = (p) => {
    for (let q = kids.get(p); q !== undefined && q > 1; q = kids.get(q)) if (q === rootPid) return true;
    return false;
  };
  return [...kids.keys()].filter((p) => isDesc(p) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker));
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux /proc, clock ticks of 10 ms). */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5) (utime, stime), counted from the state field (3).
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * CPU per call of named processes over a stretch of work: `procs` maps a label to a pid (or pids); the
 * bench process itself is `self`. Returns milliseconds of CPU per call for each label.
 */
export async function cpuPerCall(procs, calls, work) {
  const pids = Object.entries(procs).map(([k, p]) => [k, Array.isArray(p) ? p : [p]]);
  const sum = (list) => list.reduce((a, pid) => a + cpuMs(pid), 0);
  const before = pids.map(([, list]) => sum(list));
  const self0 = process.cpuUsage();
  const result = await work();
  const selfUse = process.cpuUsage(self0);
  const out = { self: round((selfUse.user + selfUse.system) / 1000 / calls) };
  pids.forEach(([k, list], i) => (out[k] = round((sum(list) - before[i]) / calls)));
  out.total = round(Object.values(out).reduce((a, b) => a + b, 0));
  return { result, cpuMsPerCall: out };
}

/** How many of the machine's cores the measured processes kept busy, on average, at this rate. */
export function coresBusy(callsPerSecond, cpuMsPerCall) {
  return round((callsPerSecond * cpuMsPerCall.total) / 1000);
}

export async function freePort() {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** A private redis-server on a free loopback port, no persistence: `{url, child}`; the caller stops the child. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout });
  for await (const l of lines) if (l.includes('Ready to accept connections')) break;
  child.stdout.resume();
  return { url: `redis://127.0.0.1:${port}`, child };
}

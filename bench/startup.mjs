#!/usr/bin/env node
// Start-up benchmarks: how fast each program is ready and how much memory it holds, each
// against a floor run interleaved in the same process. One JSON line per case; numbers go to
// docs/benchmarks.md ("Start-up"); nothing here asserts a time.
//   gateway_initialize     mcpdmcp spawn → `initialize` answered, vs bench/floor-responder.mjs; RSS after
//                          the first `tools/list` and `initialize` → that listing answered (medians of the
//                          rounds); `--compare=FILE` interleaves another tree's dist/cmd/mcpdmcp/main.js
//                          (a "before") in the same rounds
//   cli_*                  whole process (spawn → exit) of `mcpd --version`, `mcpdctl --help`, … vs `node -e 0`
//   core_start             mcpd on a copy of the repository's store: spawn → Session connections accepted,
//                          → first `tools/list` answered (cold, then from the on-disk metadata cache);
//                          idle RSS of the core against the sum of its servers'
//   docs_start / desktop_host_start   spawn → `initialize` answered, RSS after the first listing
//   client_first_list_*    what a client feels (decision 56): spawn `mcpdmcp` → `initialize` → full `tools/list`
//                          answered, warm metadata cache, vs `node -e 0` interleaved; `_autostart` with no core
//                          running (the gateway starts it; it is stopped after each round), `_running` with a
//                          core already up; on a small store (three servers) and on the repository's store;
//                          `servers_started` counts server processes the rounds started (must be 0)
// `--smoke` runs every case with tiny counts; `--case=NAME` runs one (gateway, cli, core, docs, desktop, client).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { ECHO, MCPD, MCPDMCP, REPO, childrenMatching, cpuMs, emit, emitComparison, percentile, round, rssKb, startCore } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const only = process.argv.find((a) => a.startsWith('--case='))?.slice(7);
const compare = process.argv.find((a) => a.startsWith('--compare='))?.slice(10);
const ROUNDS = smoke ? 2 : 10;
const FLOOR = join(REPO, 'bench/floor-responder.mjs');
const MCPDCTL = join(REPO, 'dist/cmd/mcpdctl/main.js');
const DOCS = join(REPO, 'dist/cmd/mcpd-docs/main.js');
const HOST = join(REPO, 'dist/cmd/mcpd-desktop-host/main.js');
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const mb = (kb) => round(kb / 1024);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};

/**
 * Spawns a stdio MCP server, times spawn → `initialize` answered, then lists tools (or `list`) once and reads the
 * process's RSS; the process is stopped before this resolves. `rss` collects the RSS (KiB) of each run,
 * `listed` (when given) the time from `initialize` answered to the listing answered (ms).
 */
function stdioStart(args, rss, env = process.env, list = 'tools', listed = undefined) {
  return async () => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    const exited = new Promise((r) => child.once('exit', r));
    const lines = createInterface({ input: child.stdout });
    const answers = lines[Symbol.asyncIterator]();
    const answer = async (id) => {
      for (;;) {
        const { value, done } = await answers.next();
        if (done) throw new Error(`${args[0]} closed stdout before answering request ${id}`);
        const msg = JSON.parse(value);
        if (msg.id !== id) continue;
        if (!msg.result) throw new Error(`${args[0]}: request ${id} failed: ${value}`);
        return msg.result;
      }
    };
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    await answer(1);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: `${list}/list`, params: {} })}\n`);
    const result = await answer(2);
    if (!Array.isArray(result[list])) throw new Error(`${args[0]}: ${list}/list answered no ${list} array`);
    listed?.push(Number(process.hrtime.bigint() - t0) / 1e6 - ms);
    rss.push(rssKb(child.pid));
    child.kill('SIGTERM');
    await exited;
    return ms;
  };
}

/** Whole-process time of `node ARGS` (spawn → exit 0); stdout must match `expect` when given. */
function wholeProcess(args, expect) {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.once('exit', (code) => {
        if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${out.slice(0, 300)}`));
        else if (expect && !expect.test(out)) reject(new Error(`node ${args.join(' ')} printed ${out.slice(0, 300)}`));
        else resolve();
      });
    });
}

/**
 * Alternating rounds of every function (each warmed up first). A function may resolve with its own time
 * in ms (spawn → `initialize` answered, without the listing and the stop that follow); otherwise the whole
 * call is timed. Returns one sorted array per function.
 */
async function rounds(fns, n, warmup) {
  const once = async (fn) => {
    const t0 = process.hrtime.bigint();
    const own = await fn();
    return typeof own === 'number' ? own : Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (const fn of fns) for (let i = 0; i < warmup; i++) await once(fn);
  const out = fns.map(() => []);
  for (let i = 0; i < n; i++) for (let f = 0; f < fns.length; f++) out[f].push(await once(fns[f]));
  return out.map((a) => a.sort((x, y) => x - y));
}

async function gateway() {
  const world = await startCore({
    default: `servers:\n  - name: a\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO)}]\n`,
  });
  try {
    const floorRss = [];
    const gwRss = [];
    const gwListed = [];
    const gw = stdioStart([MCPDMCP, 'bench', '--socket', world.socket, '--no-autostart'], gwRss, process.env, 'tools', gwListed);
    // Lists once so the core's metadata cache holds the server's tools: the rounds measure a cached store.
    await gw();
    floorRss.length = gwRss.length = gwListed.length = 0;
    const other = { rss: [], listed: [] };
    const fns = [stdioStart([FLOOR], floorRss), gw];
    if (compare)
      fns.push(stdioStart([compare, 'bench', '--socket', world.socket, '--no-autostart'], other.rss, process.env, 'tools', other.listed));
    const [floor, t, before] = await rounds(fns, ROUNDS, 1);
    // The warm-up rounds pushed RSS and listing times too: the medians are of the timed rounds only.
    const listedMs = (xs) => round(median(xs.slice(-ROUNDS)));
    emitComparison('gateway_initialize', ROUNDS, 1, t, floor, {
      rss_after_tools_list_mb: mb(median(gwRss.slice(-ROUNDS))),
      floor_rss_mb: mb(median(floorRss.slice(-ROUNDS))),
      first_tools_list_p50_ms: listedMs(gwListed),
      ...(before && {
        compared: compare,
        compared_ratio: round(percentile(before, 50) / percentile(floor, 50)),
        compared_rss_mb: mb(median(other.rss.slice(-ROUNDS))),
        compared_first_tools_list_p50_ms: listedMs(other.listed),
      }),
    });
  } finally {
    await world.stop();
  }
}

async function cli() {
  const world = await startCore({
    default: `servers:\n  - name: a\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO)}]\n`,
  });
  try {
    const version = /^\d+\.\d+\.\d+/;
    const cases = [
      ['cli_mcpd_version', [MCPD, '--version'], version],
      ['cli_mcpdctl_help', [MCPDCTL, '--help'], /usage/],
      ['cli_mcpdctl_status_json', [MCPDCTL, 'status', '--json', '--socket', world.socket], /"servers"|\{/],
      ['cli_mcpdmcp_version', [MCPDMCP, '--version'], version],
      ['cli_mcpdctl_version', [MCPDCTL, '--version'], version],
    ];
    const n = smoke ? 2 : 20;
    for (const [name, args, expect] of cases) {
      const [base, t] = await rounds([wholeProcess(['-e', '0']), wholeProcess(args, expect)], n, 2);
      emitComparison(name, n, 2, t, base);
    }
  } finally {
    await world.stop();
  }
}

/** A copy of the repository's store (its profiles run from the repository: links to node_modules, dist, docs). */
function repoStore() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-start-'));
  const store = join(dir, 'store');
  mkdirSync(store);
  cpSync(join(REPO, 'profiles'), join(store, 'profiles'), { recursive: true });
  cpSync(join(REPO, 'callers.yaml'), join(store, 'callers.yaml'));
  const runtime = readFileSync(join(REPO, 'runtime.yaml'), 'utf8').replace(/^metricsAddress:.*$/m, 'metricsAddress: 127.0.0.1:0');
  writeFileSync(join(store, 'runtime.yaml'), runtime);
  for (const link of ['node_modules', 'dist', 'docs']) symlinkSync(join(REPO, link), join(store, link));
  return { dir, store };
}

async function coreStart() {
  const { dir, store } = repoStore();
  const { createControlClient, waitForReady } = await import(join(REPO, 'dist/internal/contract/grpc/control-client.js'));
  const { openGrpcSession } = await import(join(REPO, 'dist/internal/contract/grpc/grpc-session.js'));
  const socket = join(dir, 'run', 'control.sock');
  const env = { ...process.env, MCPD_STATE_DIR: join(dir, 'state') };
  mkdirSync(env.MCPD_STATE_DIR);
  const once = async (last) => {
    const t0 = process.hrtime.bigint();
    const core = spawn(process.execPath, [MCPD, '--config', store, '--socket', socket], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let log = '';
    core.stderr.on('data', (d) => (log += d));
    const exited = new Promise((r) => core.once('exit', r));
    const client = createControlClient(socket);
    try {
      for (;;) {
        if (core.exitCode !== null) throw new Error(`core exited: ${log}`);
        try {
          await waitForReady(client, 100);
          break;
        } catch {
          // not listening yet: waitForReady already waited its 100 ms for the socket
        }
      }
      const ready = Number(process.hrtime.bigint() - t0) / 1e6;
      const s = await openGrpcSession(client, { caller: 'bench', pid: process.pid, clientName: 'bench', previousSessionId: '' });
      const listed = await s.request('tools/list', {});
      const tools = listed.tools?.length ?? 0;
      if (tools === 0) throw new Error(`core listed no tools: ${JSON.stringify(listed).slice(0, 200)}`);
      const listedMs = Number(process.hrtime.bigint() - t0) / 1e6;
      let rss;
      if (last) rss = await idleRss(core.pid, s);
      s.close();
      return { ready, listedMs, tools, rss };
    } finally {
      client.close();
      core.kill('SIGTERM');
      await exited;
    }
  };
  try {
    const cold = await once(false);
    const n = smoke ? 2 : 5;
    const warm = [];
    for (let i = 0; i < n; i++) warm.push(await once(i === n - 1));
    emit({
      case: 'core_start',
      n,
      warmup: 0,
      store: 'the repository store (profiles/default.yaml: everything, memory, filesystem, docs)',
      cold_ready_ms: round(cold.ready),
      cold_first_tools_list_ms: round(cold.listedMs),
      ready_p50: round(median(warm.map((w) => w.ready))),
      cached_first_tools_list_p50: round(median(warm.map((w) => w.listedMs))),
      tools: warm[0].tools,
      ...warm[n - 1].rss,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts every server of the default profile (one call each), then reads the core's and the servers' RSS. */
async function idleRss(corePid, session) {
  // tools/list from the cache starts no server: a call to each server starts its instance.
  for (const name of ['everything__echo', 'memory__read_graph', 'filesystem__list_allowed_directories']) {
    await session.request('tools/call', { name, arguments: name.startsWith('everything') ? { message: 'x' } : {} });
  }
  const servers = childrenMatching(corePid, 'node_modules/@modelcontextprotocol').concat(childrenMatching(corePid, 'mcpd-docs'));
  const serverKb = servers.reduce((a, pid) => a + rssKb(pid), 0);
  return { core_idle_rss_mb: mb(rssKb(corePid)), servers_running: servers.length, servers_rss_sum_mb: mb(serverKb) };
}

async function docs() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-docs-'));
  try {
    writeFileSync(join(dir, 'a.md'), '# A\n\nOne document.\n');
    const floorRss = [];
    const rss = [];
    const [floor, t] = await rounds([stdioStart([FLOOR], floorRss), stdioStart([DOCS, dir], rss, process.env, 'resources')], ROUNDS, 1);
    emitComparison('docs_start', ROUNDS, 1, t, floor, {
      rss_after_tools_list_mb: mb(median(rss.slice(-ROUNDS))),
      floor_rss_mb: mb(median(floorRss.slice(-ROUNDS))),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function desktop() {
  const { HeadlessDesktop } = await import(join(REPO, 'dist/test/fixtures/desktop/headless-desktop.js'));
  const desk = new HeadlessDesktop();
  await desk.start();
  try {
    const floorRss = [];
    const rss = [];
    const host = stdioStart([HOST, '--mcp', '--workspace-root', desk.dir], rss, desk.env());
    const [floor, t] = await rounds([stdioStart([FLOOR], floorRss), host], ROUNDS, 1);
    emitComparison('desktop_host_start', ROUNDS, 1, t, floor, {
      rss_after_tools_list_mb: mb(median(rss.slice(-ROUNDS))),
      floor_rss_mb: mb(median(floorRss.slice(-ROUNDS))),
    });
  } finally {
    await desk.stop();
  }
}

/** A small store: three servers (tools only; tools, resources and prompts; a second tools-only spec). */
function smallStore() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-client-'));
  const store = join(dir, 'store');
  mkdirSync(join(store, 'profiles'), { recursive: true });
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(store, 'profiles/default.yaml'),
    `servers:\n  - name: a\n    cmd: [${node}, ${JSON.stringify(ECHO)}]\n  - name: b\n    cmd: [${node}, ${JSON.stringify(ECHO)}]\n    env: { ECHO_TOOL_COUNT: "5" }\n` +
      `  - name: every\n    cmd: [${node}, ${JSON.stringify(join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'))}, stdio]\n`,
  );
  writeFileSync(join(store, 'callers.yaml'), 'callers: {}\n');
  writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: ""\n');
  return { dir, store };
}

/** Spawn → `initialize` → full `tools/list` answered, as a client does it; resolves with {ms, tools, corePid}. */
async function clientFirstList(store, socket, extraArgs = []) {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [MCPDMCP, 'bench', '--config', store, '--socket', socket, ...extraArgs], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((r) => child.once('exit', r));
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const answer = async (id) => {
    for (;;) {
      const { value, done } = await answers.next();
      if (done) throw new Error(`mcpdmcp closed stdout before answering ${id}: ${err}`);
      const msg = JSON.parse(value);
      if (msg.id === id) return msg.result ?? Promise.reject(new Error(`request ${id} failed: ${value}`));
    }
  };
  child.stdin.write(`${JSON.stringify(INIT)}\n`);
  await answer(1);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`);
  const { tools } = await answer(2);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  child.kill('SIGTERM');
  await exited;
  const corePid = Number(/started core pid (\d+)/.exec(err)?.[1]) || undefined;
  return { ms, tools: tools.length, corePid };
}

/** SIGTERM to a core this bench's gateway started, and the wait until it (and its socket) are gone. */
async function stopStartedCore(pid, socket) {
  if (!pid) return;
  process.kill(pid, 'SIGTERM');
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  rmSync(socket, { force: true });
}

/** Waits until the core's control socket accepts a connection. */
async function coreAccepts(socket, core) {
  for (;;) {
    if (core.exitCode !== null) throw new Error(`the core exited with ${core.exitCode}`);
    const ok = await new Promise((resolve) => {
      const s = connect(socket);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until every cache file holds the lists its server's capabilities call for (decision 32). */
async function cacheComplete(dir, servers) {
  const until = Date.now() + 180_000;
  for (;;) {
    let names = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    } catch {
      // not written yet: the first listing answered before any server did (the listing budget)
    }
    let complete = names.length === servers;
    for (const name of names) {
      const f = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      const needs = [
        ...(f.capabilities?.resources ? ['resources/list', 'resources/templates/list'] : []),
        ...(f.capabilities?.prompts ? ['prompts/list'] : []),
      ];
      if (!needs.every((m) => Array.isArray(f.lists?.[m]))) complete = false;
    }
    if (complete) return;
    if (Date.now() > until) throw new Error(`the metadata cache in ${dir} did not fill within 180 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Server processes the core runs now (its children but the reaper): the rounds must start none. */
function serverProcs(corePid) {
  if (!corePid) return 0;
  return ['echo.mjs', '@modelcontextprotocol/server-', 'mcpd-docs'].reduce((n, marker) => n + childrenMatching(corePid, marker).length, 0);
}

async function clientCase(label, { dir, store }, servers) {
  const socket = join(dir, 'run', 'control.sock');
  const env = { MCPD_STATE_DIR: join(dir, 'state') };
  Object.assign(process.env, env);
  const n = smoke ? 2 : 10;
  try {
    // The first start lists every server cold and writes the cache; the core is stopped so the rounds find none.
    const cold = await clientFirstList(store, socket);
    // A server slower than the listing budget joins the cache after the first listing answered: wait for it.
    await cacheComplete(join(env.MCPD_STATE_DIR, 'metadata-cache'), servers);
    await stopStartedCore(cold.corePid, socket);
    let started = 0;
    let tools = 0;
    // CPU the started core had used once the listing was answered (its start and the listing): steadier than time under load.
    const coreCpu = [];
    const autostart = async () => {
      const r = await clientFirstList(store, socket);
      tools = r.tools;
      started = Math.max(started, serverProcs(r.corePid));
      if (r.corePid) coreCpu.push(cpuMs(r.corePid));
      await stopStartedCore(r.corePid, socket);
      return r.ms;
    };
    const [base, t] = await rounds([wholeProcess(['-e', '0']), autostart], n, 1);
    emitComparison(`client_first_list_autostart_${label}`, n, 1, t, base, {
      tools,
      servers_started: started,
      cold_first_list_ms: round(cold.ms),
      core_cpu_ms_p50: median(coreCpu.slice(-n)),
    });

    const core = spawn(process.execPath, [MCPD, '--config', store, '--socket', socket], { stdio: 'ignore', env: process.env });
    try {
      await coreAccepts(socket, core);
      const running = async () => {
        const r = await clientFirstList(store, socket, ['--no-autostart']);
        tools = r.tools;
        started = Math.max(started, serverProcs(core.pid));
        return r.ms;
      };
      const [base2, t2] = await rounds([wholeProcess(['-e', '0']), running], n, 2);
      emitComparison(`client_first_list_running_${label}`, n, 2, t2, base2, { tools, servers_started: started });
    } finally {
      core.kill('SIGTERM');
      await new Promise((r) => (core.exitCode !== null ? r() : core.once('exit', r)));
    }
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
    rmSync(dir, { recursive: true, force: true });
  }
}

async function client() {
  await clientCase('small_store', smallStore(), 3);
  await clientCase('repo_store', repoStore(), 4);
}

const cases = { gateway, cli, core: coreStart, docs, desktop, client };
for (const [name, fn] of Object.entries(cases)) {
  if (only && only !== name) continue;
  await fn();
}
process.exit(0);

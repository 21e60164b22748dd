#!/usr/bin/env node
// Benchmarks: one JSON line per case (case, n, warmup, p50, p99, baseline, ratio, machine).
// `--smoke` runs every case with tiny counts so CI proves the benchmarks still work.
// Numbers are recorded in docs/benchmarks.md; nothing here asserts a time.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ECHO,
  EVERYTHING,
  FORWARDER,
  MCPDMCP,
  REPO,
  childrenMatching,
  cpuMs,
  emit,
  emitComparison,
  interleaved,
  percentile,
  round,
  rssKb,
  startCore,
} from './lib.mjs';
import { MCP_HUB_VERSION, startMcpHub } from './mcp-hub.mjs';

const smoke = process.argv.includes('--smoke');
const only = process.argv.find((a) => a.startsWith('--case='))?.slice(7);
const flag = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
// `--n=` and `--warmup=` set the hop case's counts (docs/benchmarks.md: the hop target is measured as 10 rounds × 200 after 1,500 warm-up).
const N = smoke ? 50 : Number(flag('n') ?? 1000);
const WARMUP = smoke ? 50 : Number(flag('warmup') ?? 3000);

// idleSeconds 0: never reaped, so a measurement never includes a cold start.
const echoSpec = (name, env = '') =>
  `  - name: ${name}\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO)}]\n    idleSeconds: 0\n` +
  (env ? `    env:\n${env}` : '');

async function connectStdio(command, args, env = {}) {
  return (await spawnStdioClient(command, args, env)).client;
}

/** A client of a stdio server it starts, and that server's pid (for CPU per call). */
async function spawnStdioClient(command, args, env = {}) {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** Starts the byte-forwarding chain of bench/forwarder.mjs in front of `server` (a command line). */
async function startFloorChain(dir, server) {
  const socket = join(dir, 'floor.sock');
  const core = spawn(process.execPath, [FORWARDER, 'core', socket, ...server], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    core.stdout.once('data', resolve);
    core.once('exit', (code) => reject(new Error(`floor forwarder exited (${code})`)));
  });
  const client = await connectStdio(process.execPath, [FORWARDER, 'gw', socket]);
  return {
    client,
    async stop() {
      await client.close();
      core.kill('SIGTERM');
      await new Promise((r) => (core.exitCode !== null ? r() : core.once('exit', r)));
    },
  };
}

const EVERYTHING_CMD = [process.execPath, EVERYTHING, 'stdio'];
const ECHO_1KB = { message: 'x'.repeat(1024) };

/** One server-everything `echo` of 1 KB; the answer is checked, so a path that breaks cannot look fast. */
async function echo1kb(client, name) {
  const r = await client.callTool({ name, arguments: ECHO_1KB });
  if (r.content?.[0]?.text?.length !== ECHO_1KB.message.length + 6)
    throw new Error(`${name}: not the echo: ${JSON.stringify(r).slice(0, 200)}`);
}

/**
 * The same server-everything behind every path the hop cases compare: a direct stdio client, mcpd
 * (MCP client → mcpdmcp → core → pooled server), the byte-forwarding floor of that process chain, and
 * mcp-hub 4.2.1 (MCP client → its SSE `/mcp` endpoint → server). One server process per path: the mcpd
 * pool is capped at one instance taking 16 calls at once, as the other paths have one process each.
 */
/** A core of `dist` with one pooled server-everything (at most one instance taking 16 calls at once). */
function startHopCore(dist) {
  return startCore(
    {
      default: `servers:\n  - name: everything\n    cmd: ${JSON.stringify(EVERYTHING_CMD)}\n    idleSeconds: 0\n    maxInstances: 1\n    maxConcurrent: 16\n`,
    },
    'callers: {}\n',
    // MCPD_BENCH_RUNTIME: a runtime.yaml for the core (e.g. `audit: { enabled: false }`, to see what a feature costs).
    process.env.MCPD_BENCH_RUNTIME ? { 'runtime.yaml': `${process.env.MCPD_BENCH_RUNTIME}\n` } : {},
    dist,
  );
}

/** An SDK client through `dist`'s gateway to `world`'s core, with both pids (for CPU per call). */
async function viaGatewayOf(dist, world) {
  const gateway = join(dist, 'cmd/mcpdmcp/main.js');
  const { client, pid } = await spawnStdioClient(process.execPath, [gateway, 'bench', '--socket', world.socket, '--no-autostart']);
  return { client, pids: { core: world.core.pid, gateway: pid }, asksClient: () => poolAsksClient(dist, world) };
}

/**
 * Whether the core serves the pool one call per instance because its server asked its client (decision 66):
 * a run in that state measures parked calls, not the hop (decision 86 is why it should not be).
 */
async function poolAsksClient(dist, world) {
  const { ControlCalls } = await import(join(dist, 'internal/contract/grpc/control-client.js'));
  const status = await new ControlCalls(world.client).status();
  return status.pools.some((pool) => pool.asksClient);
}

async function withHopPaths(fn) {
  // `--case=hop` and `--case=throughput` measure another build's gateway and core with MCPD_BENCH_DIST (the
  // same harness, servers and floor: for A/B runs against an earlier commit). MCPD_BENCH_ALSO=/path/to/dist
  // adds that build as one more path of the same run (`--case=throughput`), its rounds interleaved with the others'.
  const dist = process.env.MCPD_BENCH_DIST ?? join(REPO, 'dist');
  const world = await startHopCore(dist);
  const opened = [world];
  const failures = [];
  try {
    const floor = await startFloorChain(world.dir, EVERYTHING_CMD);
    opened.push(floor);
    const hub = await startMcpHub({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, EVERYTHING);
    opened.push(hub);
    const direct = await connectStdio(EVERYTHING_CMD[0], EVERYTHING_CMD.slice(1));
    opened.push({ stop: () => direct.close() });
    const { client: viaGateway, pids: mcpdPids, asksClient: mcpdAsksClient } = await viaGatewayOf(dist, world);
    opened.push({ stop: () => viaGateway.close() });
    let also;
    if (process.env.MCPD_BENCH_ALSO) {
      const alsoWorld = await startHopCore(process.env.MCPD_BENCH_ALSO);
      opened.push(alsoWorld);
      also = await viaGatewayOf(process.env.MCPD_BENCH_ALSO, alsoWorld);
      opened.push({ stop: () => also.client.close() });
      await untilListed(() => echo1kb(also.client, 'everything__echo'));
    }
    const viaHub = await hub.connect();
    opened.push({ stop: () => viaHub.close() });
    await fn({
      direct: () => echo1kb(direct, 'echo'),
      mcpd: () => echo1kb(viaGateway, 'everything__echo'),
      floor: () => echo1kb(floor.client, 'echo'),
      hub: () => echo1kb(viaHub, 'everything__echo'),
      mcpdPids,
      mcpdAsksClient,
      ...(also ? { also: () => echo1kb(also.client, 'everything__echo'), alsoPids: also.pids, alsoAsksClient: also.asksClient } : {}),
    });
  } catch (e) {
    failures.push(e);
  }
  // Everything is stopped even when the case or one stop fails; the first failure is reported.
  for (const o of opened.reverse()) await o.stop().catch((e) => failures.push(e));
  if (failures.length > 0) throw failures[0];
}

/**
 * 1 KB echo through mcpdmcp → core → pooled server, against a direct SDK client to the same server,
 * the same chain of processes that only forwards bytes (the floor of this topology here), and mcp-hub.
 * `own_work_p50` is mcpd's added p50 minus the floor's: what the gateway's and the core's work cost.
 */
async function hop() {
  await withHopPaths(async (p) => {
    // Interleaved rounds: this VM's speed drifts by tens of percent over a minute, and a baseline
    // measured a minute apart from the path it is compared with would carry that drift into the ratio.
    const [d, g, f, h] = await interleaved([p.direct, p.mcpd, p.floor, p.hub], N, WARMUP);
    const d50 = percentile(d, 50);
    const floorAdded = percentile(f, 50) - d50;
    emitComparison('hop_tools_call_1kb', N, WARMUP, g, d, {
      floor_p50: round(percentile(f, 50)),
      floor_added_p50: round(floorAdded),
      own_work_p50: round(percentile(g, 50) - d50 - floorAdded),
    });
    emitComparison('hop_tools_call_1kb_mcp_hub', N, WARMUP, h, d, {
      peer: `mcp-hub ${MCP_HUB_VERSION} (SSE /mcp)`,
      added_p99: round(percentile(h, 99) - percentile(d, 99)),
      mcpd_p50: round(percentile(g, 50)),
      mcpd_p99: round(percentile(g, 99)),
    });
  });
}

/**
 * What the hop's work costs in CPU: the 1 KB echo through a gateway and a core of this checkout, against a
 * gateway and a core of another build (`MCPD_BENCH_DIST=/path/to/dist`, e.g. a worktree of an earlier
 * commit; without it, this checkout alone), on the same store (audit log on, as by default), in alternating
 * rounds. Time on a loaded machine carries the other work's noise; CPU per call (/proc, 10 ms ticks: hence
 * many calls per round) is what mcpd's own work costs. Reports the median of the rounds, in µs per call.
 */
async function hopCpu() {
  const other = process.env.MCPD_BENCH_DIST;
  const builds = [['this', join(REPO, 'dist')], ...(other ? [['other', other]] : [])];
  const rounds = smoke ? 2 : 10;
  const perRound = smoke ? 50 : N;
  const profile = `servers:\n  - name: everything\n    cmd: ${JSON.stringify(EVERYTHING_CMD)}\n    idleSeconds: 0\n    maxInstances: 1\n    maxConcurrent: 16\n`;
  const opened = [];
  try {
    const paths = [];
    for (const [label, dist] of builds) {
      const world = await startCore({ default: profile }, 'callers: {}\n', { 'runtime.yaml': 'metricsAddress: ""\n' }, dist);
      opened.push(world);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(dist, 'cmd/mcpdmcp/main.js'), 'bench', '--socket', world.socket, '--no-autostart'],
        stderr: 'ignore',
      });
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(transport);
      opened.push({ stop: () => client.close() });
      paths.push({
        label,
        dist,
        pids: { core: world.core.pid, gateway: transport.pid },
        call: () => echo1kb(client, 'everything__echo'),
        core: [],
        gateway: [],
        ms: [],
      });
    }
    for (const p of paths) {
      await untilListed(p.call);
      for (let i = 0; i < WARMUP; i++) await p.call();
    }
    for (let r = 0; r < rounds; r++)
      for (const p of paths) {
        const before = { core: cpuMs(p.pids.core), gateway: cpuMs(p.pids.gateway) };
        for (let i = 0; i < perRound; i++) {
          const t = performance.now();
          await p.call();
          p.ms.push(performance.now() - t);
        }
        for (const k of ['core', 'gateway']) p[k].push(((cpuMs(p.pids[k]) - before[k]) * 1000) / perRound);
      }
    const median = (xs) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    const [mine, theirs] = paths;
    emit({
      case: 'hop_cpu_per_call',
      n: rounds * perRound,
      warmup: WARMUP,
      p50: round(median(mine.ms)),
      core_cpu_us: Math.round(median(mine.core)),
      gateway_cpu_us: Math.round(median(mine.gateway)),
      ...(theirs
        ? {
            other_dist: theirs.dist,
            other_p50: round(median(theirs.ms)),
            other_core_cpu_us: Math.round(median(theirs.core)),
            other_gateway_cpu_us: Math.round(median(theirs.gateway)),
            // Round by round (the same minute of load): this build's core minus the other's.
            core_cpu_us_diff_median: Math.round(median(mine.core.map((c, i) => c - theirs.core[i]))),
          }
        : {}),
    });
  } finally {
    for (const o of opened.reverse()) await o.stop().catch(() => {});
  }
}

/** The first call, retried while the core is still listing the server (a loaded machine starts it slowly). */
async function untilListed(call) {
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (Date.now() > until || !/still being listed/.test(String(e?.message))) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * The hop (1 KB echo through mcpdmcp → core → server-everything) with the audit log on (the default) and
 * off (`audit: { enabled: false }`): two cores on the same configuration, measured in interleaved rounds as
 * `hop()` does. `added_p50` is what the audit interceptor and its writer cost a call.
 */
async function audit() {
  const everything = `servers:\n  - name: everything\n    cmd: ${JSON.stringify(EVERYTHING_CMD)}\n    idleSeconds: 0\n    maxInstances: 1\n`;
  const opened = [];
  try {
    const core = async (runtime) => {
      const world = await startCore({ default: everything }, 'callers: {}\n', { 'runtime.yaml': `metricsAddress: ""\n${runtime}` });
      opened.push(world);
      const client = await connectStdio(process.execPath, [MCPDMCP, 'bench', '--socket', world.socket, '--no-autostart']);
      opened.push({ stop: () => client.close() });
      return { world, call: () => echo1kb(client, 'everything__echo') };
    };
    const on = await core('');
    const off = await core('audit: { enabled: false }\n');
    // The cores' CPU per call is steadier than time on a loaded machine: it says what the audit costs the core.
    const cpu0 = [cpuMs(off.world.core.pid), cpuMs(on.world.core.pid)];
    const [a, b] = await interleaved([off.call, on.call], N, WARMUP);
    const perCall = (pid, i) => round((cpuMs(pid) - cpu0[i]) / (N + WARMUP));
    emitComparison('hop_audit_on_vs_off', N, WARMUP, b, a, {
      core_cpu_ms_per_call_off: perCall(off.world.core.pid, 0),
      core_cpu_ms_per_call_on: perCall(on.world.core.pid, 1),
      audit_file_bytes: auditBytes(on.world.store),
    });
  } finally {
    for (const o of opened.reverse()) await o.stop().catch(() => {});
  }
}

/** The size of the audit log a bench core wrote: proof that the "on" core really logged every call. */
function auditBytes(store) {
  try {
    return statSync(join(store, '.mcpd-state', 'audit.jsonl')).size;
  } catch {
    return 0;
  }
}

/**
 * Twenty rules of callers.yaml `policies:` as a user might write them (docs/policy.md): read-only clients,
 * path restrictions, quotas, a few rules for the bench caller itself with `when` (evaluated on every call)
 * and a quota it never reaches. The hop's call meets four of them: three with `when` and a quota.
 */
const POLICY_RULES = `policies:
  - { name: cursor-read-only, callers: [cursor], effect: deny, tools: ["fs__write_*", "fs__edit_*", "fs__move_*", "fs__create_*"] }
  - { name: agents-tmp-only, callers: ["agent-*"], effect: deny, tools: ["fs__*"], when: '!has(args.path) || !args.path.startsWith("/tmp/")' }
  - { name: no-env, effect: deny, tools: ["*__get-env", "*__printEnv"] }
  - { name: no-secret-echo, effect: deny, tools: ["everything__echo"], when: 'has(args.message) && args.message == "secret"' }
  - { name: guests-no-prompts, callers: ["guest-*"], effect: deny, prompts: ["*"] }
  - { name: no-etc, effect: deny, resources: ["file:///etc/*"] }
  - { name: ci-only-from-ci, callers: [ci], effect: deny, when: 'client != "github-actions"' }
  - { name: bench-long-messages, callers: ["b*"], effect: deny, tools: ["everything__echo"], when: 'size(args.message) > 100000' }
  - { name: vscode-no-shell, callers: [vscode], effect: deny, tools: ["shell__*", "exec__*"] }
  - { name: memory-read-only, callers: ["claude-*"], effect: deny, tools: ["memory__create_*", "memory__delete_*"] }
  - { name: grpc-no-sampling, effect: deny, tools: ["*__trigger-sampling-*"], when: 'face == "grpc"' }
  - { name: desktop-typing, callers: ["agent-*"], effect: deny, tools: ["desktop__type*"], when: 'args.text.contains("sudo")' }
  - { name: night-owl-quota, callers: [night-owl], effect: allow, tools: ["*"], rate: "100/hour" }
  - { name: team-box-quota, callers: ["team-*"], effect: allow, rate: "60/minute" }
  - { name: no-long-ops, callers: ["guest-*", "team-*"], effect: deny, tools: ["*__trigger-long-running-operation"] }
  - { name: bench-no-zip, callers: [bench], effect: deny, tools: ["everything__gzip-file-as-resource"] }
  - { name: echo-only-text, effect: deny, tools: ["everything__echo"], when: 'type(args.message) != string' }
  - { name: bench-quota, callers: [bench], effect: allow, tools: ["everything__*"], rate: "1000000/second" }
  - { name: remote-no-fs, callers: ["remote-*"], effect: deny, tools: ["fs__*"] }
  - { name: guests-nothing, callers: ["guest-*"], effect: deny }
`;

/**
 * The two cores of the policy case differ in rules and in the audit log: the bare core turns the audit
 * off (it is on by default), the second keeps it on in its state directory, as a user's core runs.
 */
const BARE_CORE_RUNTIME = 'audit:\n  enabled: false\n';

/**
 * The hop (1 KB echo through mcpdmcp) interleaved against two cores on the same server: one without
 * rules and no audit log, one with the twenty of POLICY_RULES and the audit log on. `added_p50` is what
 * both cost together (the target: ≤ 0.05 ms).
 */
async function policy() {
  const profiles = {
    default: `servers:\n  - name: everything\n    cmd: ${JSON.stringify(EVERYTHING_CMD)}\n    idleSeconds: 0\n    maxInstances: 1\n    maxConcurrent: 16\n`,
  };
  const quiet = 'metricsAddress: ""\n';
  const opened = [];
  const failures = [];
  try {
    const bare = await startCore(profiles, 'callers: {}\n', { 'runtime.yaml': quiet + BARE_CORE_RUNTIME });
    opened.push(bare);
    const ruled = await startCore(profiles, `callers: {}\n${POLICY_RULES}`, { 'runtime.yaml': quiet });
    opened.push(ruled);
    const [a, b] = await Promise.all(
      [bare, ruled].map((w) => connectStdio(process.execPath, [MCPDMCP, 'bench', '--socket', w.socket, '--no-autostart'])),
    );
    opened.push({ stop: () => a.close() }, { stop: () => b.close() });
    const [without, withRules] = await interleaved([() => echo1kb(a, 'everything__echo'), () => echo1kb(b, 'everything__echo')], N, WARMUP);
    emitComparison('hop_tools_call_1kb_20_policy_rules_and_audit', N, WARMUP, withRules, without, {
      rules: 20,
      audit: true,
      target_added_p50: 0.05,
    });
    await policyInProcess(ruled.store);
  } catch (e) {
    failures.push(e);
  }
  for (const o of opened.reverse()) await o.stop().catch((e) => failures.push(e));
  if (failures.length > 0) throw failures[0];
}

/**
 * The policy interceptor alone, in this process, on the rules the second core loaded: what the door spends
 * on a 1 KB echo's decision (its share of the hop's added p50, without the machine's noise around it).
 */
async function policyInProcess(store) {
  const { loadStore } = await import(join(REPO, 'dist/internal/store/index.js'));
  const { Policy } = await import(join(REPO, 'dist/internal/core/app/door/policy.js'));
  const r = await loadStore(store, { env: process.env, runCommands: false });
  if (!r.ok) throw new Error(`the policy store did not load: ${JSON.stringify(r.issues)}`);
  const policy = new Policy({ store: () => r.store });
  const call = (args) => ({
    face: 'session',
    caller: 'bench',
    client: 'bench',
    method: 'tools/call',
    admission: 'core',
    target: 'everything__echo',
    args,
    timeoutMs: undefined,
    startedAt: Date.now(),
    note: {},
  });
  const n = smoke ? 1000 : 200_000;
  for (let i = 0; i < n; i++) policy.interceptor.enter(call({ message: 'x'.repeat(1024) }));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    if (policy.interceptor.enter(call({ message: 'x'.repeat(1024) }))) throw new Error('the bench call was refused');
  }
  const perCallMs = Number(process.hrtime.bigint() - t0) / 1e6 / n;
  emit({ case: 'policy_enter_20_rules_in_process', n, mean_ms: round(perCallMs), rules: r.store.policies.length });
}

/** Calls per second of `loops` concurrent loops on one client, `total` calls in all. */
async function loopsThroughput(call, loops, total) {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (next < total) {
        next++;
        await call();
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/**
 * 16 concurrent loops of 1 KB echoes on one client: direct, through mcpd (one gateway) and through
 * mcp-hub, in alternating rounds. Ratios are against direct in the same rounds.
 */
async function throughput() {
  const LOOPS = 16;
  const rounds = smoke ? 2 : 10;
  const perRound = smoke ? 64 : 1000;
  await withHopPaths(async (p) => {
    // floor: the same process chain that only forwards bytes — what any gateway in this topology costs.
    const paths = { direct: p.direct, floor: p.floor, mcpd: p.mcpd, mcp_hub: p.hub, ...(p.also ? { also: p.also } : {}) };
    const pidsOf = { mcpd: p.mcpdPids, also: p.alsoPids };
    // Warm-up of five rounds per path: after one round (1,000 calls) the first timed rounds still ran
    // at a third of their steady rate while the JIT optimised the gateway and the core.
    const warmup = smoke ? perRound : 5 * perRound;
    for (const call of Object.values(paths)) await loopsThroughput(call, LOOPS, warmup);
    const seconds = { direct: 0, floor: 0, mcpd: 0, mcp_hub: 0, also: 0 };
    // The core's and the gateway's CPU over mcpd's timed rounds: unlike the rate, robust to other load on the machine.
    const cpu = { mcpd: { core: 0, gateway: 0 }, also: { core: 0, gateway: 0 } };
    for (let r = 0; r < rounds; r++)
      for (const [name, call] of Object.entries(paths)) {
        const pids = pidsOf[name];
        const before = pids && { core: cpuMs(pids.core), gateway: cpuMs(pids.gateway) };
        seconds[name] += perRound / (await loopsThroughput(call, LOOPS, perRound));
        if (before) for (const k of ['core', 'gateway']) cpu[name][k] += cpuMs(pids[k]) - before[k];
      }
    const perCall = (ms) => Math.round((ms * 1000) / (rounds * perRound));
    const rate = (name) => (rounds * perRound) / seconds[name];
    emit({
      case: 'hop_throughput_16_loops',
      n: rounds * perRound,
      warmup,
      loops: LOOPS,
      direct_calls_per_s: Math.round(rate('direct')),
      floor_calls_per_s: Math.round(rate('floor')),
      mcpd_calls_per_s: Math.round(rate('mcpd')),
      mcp_hub_calls_per_s: Math.round(rate('mcp_hub')),
      floor_ratio: round(rate('floor') / rate('direct')),
      mcpd_ratio: round(rate('mcpd') / rate('direct')),
      mcp_hub_ratio: round(rate('mcp_hub') / rate('direct')),
      mcpd_core_cpu_us: perCall(cpu.mcpd.core),
      mcpd_gateway_cpu_us: perCall(cpu.mcpd.gateway),
      mcpd_pool_asks_client: await p.mcpdAsksClient(),
      ...(p.also
        ? {
            also_dist: process.env.MCPD_BENCH_ALSO,
            also_pool_asks_client: await p.alsoAsksClient(),
            also_calls_per_s: Math.round(rate('also')),
            also_ratio: round(rate('also') / rate('direct')),
            also_core_cpu_us: perCall(cpu.also.core),
            also_gateway_cpu_us: perCall(cpu.also.gateway),
          }
        : {}),
    });
  });
}

/** Full ListTools of 20 servers × 50 tools, served from the metadata cache. */
async function listing() {
  const servers = Array.from({ length: 20 }, (_, i) =>
    echoSpec(`s${String(i).padStart(2, '0')}`, `      ECHO_TOOL_COUNT: "40"\n      BENCH_ID: "${i}"\n`),
  ).join('');
  const world = await startCore({ default: `servers:\n${servers}` });
  const { ControlCalls } = await import(join(REPO, 'dist/internal/contract/grpc/control-client.js'));
  const calls = new ControlCalls(world.client);
  try {
    const listAll = async () => {
      let cursor = '';
      let count = 0;
      do {
        const page = await calls.listTools({ caller: 'bench', cursor, pageSize: 1000 });
        count += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor);
      return count;
    };
    // The first listing answers within the core's listing budget with the servers ready by then; the
    // cached case starts once all 20 have listed (a loaded machine starts them in more than the budget).
    let total = await listAll();
    for (const until = Date.now() + 120_000; total !== 1000 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 250));
      total = await listAll();
    }
    if (total !== 1000) throw new Error(`expected 1000 tools, listed ${total}`);
    // Baseline: the same 1000 tool definitions fetched from one live server in this process.
    const direct = await connectStdio(process.execPath, [ECHO], { ECHO_TOOL_COUNT: '990' });
    const n = Math.max(20, Math.round(N / 5));
    const w = Math.max(20, Math.round(WARMUP / 30));
    const [b, t] = await interleaved([() => direct.listTools(), listAll], n, w);
    emitComparison('list_tools_20x50_cached', n, w, t, b);
    await direct.close();
  } finally {
    await world.stop();
  }
}

/** Server processes and core RSS with 1, 10 and 50 attached callers (Session streams, as gateways hold). */
async function density() {
  const world = await startCore({ default: `servers:\n${echoSpec('a')}${echoSpec('b', '      ROLE: "b"\n')}` });
  const { openGrpcSession } = await import(join(REPO, 'dist/internal/contract/grpc/grpc-session.js'));
  const sessions = [];
  try {
    for (const target of smoke ? [1, 10] : [1, 10, 50]) {
      while (sessions.length < target) {
        const s = await openGrpcSession(world.client, {
          caller: `c${sessions.length}`,
          pid: process.pid,
          clientName: 'bench',
          previousSessionId: '',
        });
        await s.request('tools/call', { name: 'a__echo', arguments: { i: sessions.length } });
        await s.request('tools/call', { name: 'b__echo', arguments: { i: sessions.length } });
        sessions.push(s);
      }
      const servers = childrenMatching(world.core.pid, ECHO).length;
      emit({
        case: `density_${target}_callers`,
        n: target,
        warmup: 0,
        server_processes: servers,
        core_rss_mb: round(rssKb(world.core.pid) / 1024),
      });
    }
  } finally {
    for (const s of sessions) s.close();
    await world.stop();
  }
}

/** Resolves with the time from `trigger()` to the first notification `schema` on `client`. */
function notificationDelay(client, schema, trigger) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    client.setNotificationHandler(schema, () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    trigger().catch(reject);
  });
}

async function measureDelays(client, schema, trigger, n, warmup) {
  for (let i = 0; i < warmup; i++) await notificationDelay(client, schema, () => trigger(i));
  const out = [];
  for (let i = 0; i < n; i++) out.push(await notificationDelay(client, schema, () => trigger(i)));
  return out.sort((a, b) => a - b);
}

/**
 * Downstream list_changed and resources/updated to the MCP client, through mcpdmcp and the core,
 * against the same notification from a directly connected server. Measured from the tool call that
 * makes the server send it to the client receiving it.
 */
async function notify() {
  const { ToolListChangedNotificationSchema, ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const WINDOW = join(REPO, 'test/fixtures/servers/window-server.mjs');
  const world = await startCore({
    default: `servers:\n${echoSpec('fx')}  - name: win\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(WINDOW)}]\n    idleSeconds: 0\n    strategy: singleton\n`,
  });
  const n = smoke ? 10 : 200;
  const warmup = smoke ? 5 : 100;
  try {
    const direct = await connectStdio(process.execPath, [ECHO]);
    const viaGateway = await connectStdio(process.execPath, [MCPDMCP, 'bench', '--socket', world.socket, '--no-autostart']);
    await viaGateway.listTools(); // a client that listed is told about changes
    const d = await measureDelays(
      direct,
      ToolListChangedNotificationSchema,
      () => direct.callTool({ name: 'churn', arguments: {} }),
      n,
      warmup,
    );
    const g = await measureDelays(
      viaGateway,
      ToolListChangedNotificationSchema,
      () => viaGateway.callTool({ name: 'fx__churn', arguments: {} }),
      n,
      warmup,
    );
    emitComparison('notify_tools_list_changed', n, warmup, g, d);

    const uri = 'window://com.example.win/editor?priority=80';
    const directWin = await connectStdio(process.execPath, [WINDOW]);
    await directWin.subscribeResource({ uri });
    await viaGateway.subscribeResource({ uri });
    const dw = await measureDelays(
      directWin,
      ResourceUpdatedNotificationSchema,
      (i) => directWin.callTool({ name: 'set_window', arguments: { path: 'editor', text: `v${i}` } }),
      n,
      warmup,
    );
    const gw = await measureDelays(
      viaGateway,
      ResourceUpdatedNotificationSchema,
      (i) => viaGateway.callTool({ name: 'win__set_window', arguments: { path: 'editor', text: `v${i}` } }),
      n,
      warmup,
    );
    emitComparison('notify_resources_updated', n, warmup, gw, dw);
    for (const c of [direct, viaGateway, directWin]) await c.close();
  } finally {
    await world.stop();
  }
}

/**
 * A chatty server: the logger fixture sends one notifications/message per call; a client that set
 * level `info` counts what arrives. Entries per second through mcpdmcp, and whether any was lost.
 */
async function logs() {
  const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const LOGGER = join(REPO, 'test/fixtures/servers/logger.mjs');
  const world = await startCore({
    default: `servers:\n  - name: chatty\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(LOGGER)}]\n    idleSeconds: 0\n    maxConcurrent: 64\n`,
  });
  const total = smoke ? 200 : 5000;
  const window = 32; // calls in flight at once
  try {
    const client = await connectStdio(process.execPath, [MCPDMCP, 'bench', '--socket', world.socket, '--no-autostart']);
    await client.setLoggingLevel('info');
    let received = 0;
    let allIn;
    const done = new Promise((r) => (allIn = r));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (m) => {
      if (typeof m.params.data === 'string' && m.params.data.startsWith('bench-')) {
        received++;
        if (received === total) allIn();
      }
    });
    // Warm: the server is started (and listed) before the clock runs.
    await client.callTool({ name: 'chatty__log', arguments: { level: 'debug', data: 'warm-up' } });
    const t0 = process.hrtime.bigint();
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const i = next++;
        await client.callTool({ name: 'chatty__log', arguments: { level: 'info', data: `bench-${i}` } });
      }
    };
    await Promise.all(Array.from({ length: window }, worker));
    await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    emit({
      case: 'log_throughput_info',
      n: total,
      warmup: 0,
      entries_per_second: Math.round(received / seconds),
      received,
      lost: total - received,
    });
    await client.close();
  } finally {
    await world.stop();
  }
}

/**
 * The shared core link: a 1 KB tools/call on a Session that is one of 50 channels of a
 * MCPD-SESSION/2 connection, against the same call on a MCPD-SESSION/1 connection of its own (what each
 * HTTP session had before); then the same call through `mcpdmcp --http` with 50 MCP sessions on its one
 * shared link, against the stdio gateway.
 */
async function mux() {
  const payload = { data: 'x'.repeat(1024) };
  const world = await startCore({ default: `servers:\n${echoSpec('fx')}` });
  const { SessionClient } = await import(join(REPO, 'dist/internal/contract/session/session-client.js'));
  const { SharedCoreConnection } = await import(join(REPO, 'dist/internal/gateway/shared-core-connection.js'));
  const hello = (i) => ({ caller: 'bench', pid: process.pid, clientName: `mux-${i}`, previousSessionId: '' });
  const shared = new SharedCoreConnection(world.socket);
  const closers = [];
  try {
    const channels = [];
    for (let i = 0; i < 50; i++) channels.push(await shared.openSession(hello(i)));
    const own = await SessionClient.connect(world.socket, hello('own'));
    closers.push(() => own.close());
    const call = (s) => () => s.request('tools/call', { name: 'fx__echo', arguments: payload });
    const [m, o] = await interleaved([call(channels[25]), call(own)], N, WARMUP);
    emitComparison('session_mux_tools_call_1kb', N, WARMUP, m, o, { channels_on_connection: channels.length });

    const http = await startHttpGateway(world.socket);
    closers.push(http.stop);
    const sessions = [];
    for (let i = 0; i < 50; i++) sessions.push(await connectHttp(http.url));
    closers.push(() => Promise.all(sessions.map((c) => c.close())));
    const stdio = await connectStdio(process.execPath, [MCPDMCP, 'bench', '--socket', world.socket, '--no-autostart']);
    closers.push(() => stdio.close());
    const n = Math.max(20, Math.round(N / 2));
    const w = Math.max(20, Math.round(WARMUP / 6));
    const [h, d] = await interleaved(
      [
        () => sessions[25].callTool({ name: 'fx__echo', arguments: payload }),
        () => stdio.callTool({ name: 'fx__echo', arguments: payload }),
      ],
      n,
      w,
    );
    emitComparison('http_shared_link_tools_call_1kb', n, w, h, d, { http_sessions: sessions.length, baseline: 'stdio gateway' });
  } finally {
    for (const close of closers.reverse()) await close();
    shared.close();
    await world.stop();
  }
}

/**
 * 2026-07-28 stateless HTTP: a 1 KB `tools/call` POSTed to `mcpdmcp --http` with no session
 * (protocol version and capabilities in `_meta`, routing headers set), against the same call made directly
 * on the echo server over stdio: the p50 the stateless gateway path adds. The same call on a 2025-11-25
 * HTTP session through the same gateway is measured beside it (`http_session_p50`): HTTP's own share.
 */
async function stateless() {
  const payload = { data: 'x'.repeat(1024) };
  const world = await startCore({ default: `servers:\n${echoSpec('fx')}` });
  const closers = [];
  try {
    const http = await startHttpGateway(world.socket);
    closers.push(http.stop);
    const direct = await connectStdio(process.execPath, [ECHO]);
    closers.push(() => direct.close());
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'fx__echo',
    };
    let id = 0;
    const post = async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'fx__echo', arguments: payload, _meta: meta },
      });
      const res = await fetch(http.url, { method: 'POST', headers, body });
      const answer = await res.json();
      if (!answer.result) throw new Error(`stateless tools/call failed: ${JSON.stringify(answer.error)}`);
    };
    // The same call on a 2025-11-25 HTTP session through the same gateway: what HTTP itself costs.
    const session = await connectHttp(http.url);
    closers.push(() => session.close());
    const n = Math.max(20, Math.round(N / 2));
    const w = Math.max(20, Math.round(WARMUP / 6));
    const [h, d, s] = await interleaved(
      [post, () => direct.callTool({ name: 'echo', arguments: payload }), () => session.callTool({ name: 'fx__echo', arguments: payload })],
      n,
      w,
    );
    emitComparison('stateless_http_2026_tools_call_1kb', n, w, h, d, {
      baseline: 'direct stdio',
      http_session_p50: round(percentile(s, 50)),
      http_session_p99: round(percentile(s, 99)),
    });
  } finally {
    for (const close of closers.reverse()) await close();
    await world.stop();
  }
}

async function connectHttp(url) {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'bench-http', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** `mcpdmcp bench --http 127.0.0.1:0`, resolved once it prints its URL. */
async function startHttpGateway(socket) {
  const proc = spawn(
    process.execPath,
    [MCPDMCP, 'bench', '--socket', socket, '--no-autostart', '--http', '127.0.0.1:0', '--max-sessions', '100'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  const url = await new Promise((resolve, reject) => {
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`mcpdmcp --http exited (${code}): ${err}`)));
  });
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
    },
  };
}

const cases = { hop, hopcpu: hopCpu, audit, policy, throughput, listing, density, notify, logs, mux, stateless };
for (const [name, fn] of Object.entries(cases)) {
  if (only && only !== name) continue;
  await fn();
}
process.exit(0);

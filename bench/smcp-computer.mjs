#!/usr/bin/env node
// The core as an A2C-SMCP Computer: client:tool_call agent → mcpd-smcp → core → server-everything echo
// (1 KB), against the same call made directly into the core over gRPC (what `mcpdctl call` does), in
// interleaved rounds of one run; then 16 concurrent agent calls for throughput, with the CPU each process
// spent per call. Once through one Server node, once with the agent and the core on two nodes sharing a
// real redis-server. JSON lines; nothing asserted.
// SMCP_PROF=DIR writes CPU profiles of the Server nodes and of server-everything (CORE_PROF: the core).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes, randomUUID } from 'node:crypto';
import { io } from 'socket.io-client';
import {
  EVERYTHING,
  REPO,
  childrenMatching,
  coresBusy,
  cpuPerCall,
  emit,
  emitComparison,
  interleaved,
  profileFlags,
  round,
  startCore,
  startRedis,
} from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const N = smoke ? 50 : 2000;
const WARMUP = smoke ? 20 : 1000;
const CONCURRENCY = 16;
const THROUGHPUT_CALLS = smoke ? 200 : 20_000;
const KEY = randomUUID();
// The nodes' own secret for what they share through Redis (never the API key: mcpd-smcp refuses that).
const NODE_SECRET = randomBytes(32).toString('base64');
const SMCP = join(REPO, 'dist/cmd/mcpd-smcp/main.js');
const PROF = profileFlags(process.env.SMCP_PROF);
// One instance taking all 16 calls: a second server-everything would only compete for the same two
// cores (docs/benchmarks.md says what this setting changes).
const POOL = '    maxInstances: 1\n    maxConcurrent: 16\n';
const children = [];

async function startSmcp(extra = []) {
  const child = spawn(process.execPath, [...PROF, SMCP, '--listen', '127.0.0.1:0', ...extra], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, SMCP_API_KEY: KEY, SMCP_NODE_SECRET: NODE_SECRET },
  });
  children.push(child);
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  return { child, url: JSON.parse(line).url };
}

async function agentOf(url) {
  const socket = io(`${url}/smcp`, { transports: ['websocket'], extraHeaders: { 'x-api-key': KEY }, reconnection: false });
  await once(socket, 'connect');
  const [ok, msg] = await new Promise((r) =>
    socket.emit('server:join_office', { role: 'agent', name: 'bench', office_id: 'bench' }, (...a) => r(a)),
  );
  if (!ok) throw new Error(`agent join refused: ${msg}`);
  return socket;
}

/** Points the core's computer at `url` (runtime.yaml + reload, as `mcpdctl reload` does) and waits until it joined there. */
async function computerAt(world, url) {
  writeFileSync(
    join(world.store, 'runtime.yaml'),
    `smcp:\n  url: ${url}\n  apiKey: ${KEY}\n  office: bench\n  computers:\n    - { name: core, caller: bench }\n`,
  );
  const { ControlCalls } = await import(join(REPO, 'dist/internal/contract/grpc/control-client.js'));
  const calls = new ControlCalls(world.client);
  const r = await calls.reload();
  if (!r.applied) throw new Error(`runtime.yaml rejected: ${r.issues.join('; ')}`);
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    const st = await calls.status();
    if (st.smcpComputers.some((c) => c.name === 'core' && c.url === url && c.state === 'joined')) return;
    await new Promise((r) => setTimeout(r, 50)); // polling a status, not synchronising a measurement
  }
  throw new Error(`the core never joined the office at ${url}`);
}

function directCall(client, args) {
  return new Promise((resolve, reject) => {
    const stream = client.callTool({
      caller: 'bench',
      name: 'everything__echo',
      argumentsJson: Buffer.from(JSON.stringify(args)),
      routingKey: '',
      timeoutMs: 0,
    });
    let result;
    stream.on('data', (ev) => ev.resultJson && (result = ev.resultJson));
    stream.on('error', reject);
    stream.on('end', () => {
      const r = result && JSON.parse(result.toString('utf8'));
      if (r?.content?.[0]?.text === `Echo: ${args.message}`) resolve(r);
      else reject(new Error(`call failed: ${String(result).slice(0, 300)}`));
    });
  });
}

async function agentCall(agent, args) {
  const r = await agent.timeout(30_000).emitWithAck('client:tool_call', {
    agent: 'bench',
    req_id: randomUUID(),
    computer: 'core',
    tool_name: 'everything__echo',
    params: args,
    timeout: 30,
  });
  // A fast wrong answer must not pass for a fast call.
  if (r.isError || r.code || r.content?.[0]?.text !== `Echo: ${args.message}`)
    throw new Error(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

/** `calls` calls, CONCURRENCY in flight; returns the elapsed seconds. */
async function burst(call, calls) {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < calls) await call();
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/**
 * Throughput through SMCP against the same concurrency straight into the core, alternating halves so drift
 * of this shared VM hits both alike; with the CPU every process spent per call on each path.
 */
async function throughput(name, nodes, agent, world, procs) {
  const args = { message: 'x'.repeat(1024) };
  const paths = {
    smcp: { call: () => agentCall(agent, args), seconds: 0, cpu: [] },
    grpc: { call: () => directCall(world.client, args), seconds: 0, cpu: [] },
  };
  const half = THROUGHPUT_CALLS / 2;
  for (let round_ = 0; round_ < 2; round_++) {
    for (const p of Object.values(paths)) {
      const everything = childrenMatching(world.core.pid, 'server-everything');
      const { result, cpuMsPerCall } = await cpuPerCall({ ...procs, core: world.core.pid, everything }, half, () => burst(p.call, half));
      p.seconds += result;
      p.cpu.push(cpuMsPerCall);
    }
  }
  const perSecond = (p) => THROUGHPUT_CALLS / p.seconds;
  const meanCpu = (p) => Object.fromEntries(Object.keys(p.cpu[0]).map((k) => [k, round((p.cpu[0][k] + p.cpu[1][k]) / 2)]));
  emit({
    case: name,
    n: THROUGHPUT_CALLS,
    warmup: 0,
    concurrency: CONCURRENCY,
    nodes,
    calls_per_second: round(perSecond(paths.smcp)),
    baseline_calls_per_second: round(perSecond(paths.grpc)),
    ratio: round(perSecond(paths.smcp) / perSecond(paths.grpc)),
    cpu_ms_per_call: meanCpu(paths.smcp),
    // With 2 cores and a quiet machine, 2 / total CPU per call bounds the rate; under load this shows the share we got.
    cores_busy: coresBusy(perSecond(paths.smcp), meanCpu(paths.smcp)),
    baseline_cpu_ms_per_call: meanCpu(paths.grpc),
    baseline: 'grpc CallTool into the core, same concurrency',
  });
}

async function latency(name, agent, world, extra) {
  const args = { message: 'x'.repeat(1024) };
  const [viaSmcp, direct] = await interleaved([() => agentCall(agent, args), () => directCall(world.client, args)], N, WARMUP);
  emitComparison(name, N, WARMUP, viaSmcp, direct, { baseline: 'grpc CallTool into the core (mcpdctl call)', ...extra });
}

async function oneNode(world) {
  const smcp = await startSmcp();
  await computerAt(world, smcp.url);
  const agent = await agentOf(smcp.url);
  await latency('smcp_tool_call_echo_1k', agent, world, { nodes: 1 });
  await throughput('smcp_tool_call_echo_1k_concurrent', 1, agent, world, { server: smcp.child.pid });
  agent.close();
}

async function twoNodes(world) {
  const redis = await startRedis();
  children.push(redis.child);
  const near = await startSmcp(['--redis', redis.url]);
  const far = await startSmcp(['--redis', redis.url]);
  // The agent on one node, the core's computer on the other: every call crosses Redis twice.
  await computerAt(world, far.url);
  const agent = await agentOf(near.url);
  await latency('smcp_tool_call_echo_1k_cross_node', agent, world, { nodes: 2 });
  const procs = { server: near.child.pid, server2: far.child.pid, redis: redis.child.pid };
  await throughput('smcp_tool_call_echo_1k_concurrent_cross_node', 2, agent, world, procs);
  agent.close();
}

const everything = [process.execPath, ...profileFlags(process.env.SMCP_PROF), EVERYTHING, 'stdio'].map((s) => JSON.stringify(s));
const world = await startCore({
  default: `servers:\n  - name: everything\n    cmd: [${everything.join(', ')}]\n    idleSeconds: 0\n${POOL}`,
});
try {
  await oneNode(world);
  await twoNodes(world);
} finally {
  await world.stop();
  // Servers first, Redis last, so the nodes can leave cleanly.
  const stop = async (list) => {
    for (const c of list) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(list.map((c) => (c.exitCode !== null || c.signalCode ? null : once(c, 'exit'))));
  };
  await stop(children.filter((c) => c.spawnargs[0] !== 'redis-server'));
  await stop(children.filter((c) => c.spawnargs[0] === 'redis-server'));
}

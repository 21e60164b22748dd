#!/usr/bin/env node
// The SMCP Server as a router: client:tool_call agent → mcpd-smcp → a computer that answers at once (1 KB
// echo), against one bare Socket.IO hop (bench/socketio-echo.mjs) interleaved in the same run; 16 concurrent
// agent calls through one node; the same across two nodes sharing a real redis-server (cross-node hop
// against same-node); server RSS per 1,000 idle connected computers. JSON lines; nothing asserted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes, randomUUID } from 'node:crypto';
import { io } from 'socket.io-client';
import { REPO, coresBusy, cpuPerCall, emit, emitComparison, interleaved, profileFlags, round, rssKb, startRedis } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const N = smoke ? 50 : 2000;
const WARMUP = smoke ? 20 : 1000;
const CONCURRENCY = 16;
const THROUGHPUT_CALLS = smoke ? 200 : 20_000;
const IDLE = smoke ? 100 : 1000;
const KEY = randomUUID();
// The nodes' own secret for what they share through Redis (never the API key: mcpd-smcp refuses that).
const NODE_SECRET = randomBytes(32).toString('base64');
const SMCP = join(REPO, 'dist/cmd/mcpd-smcp/main.js');
const MESSAGE = 'x'.repeat(1024);
const children = [];

async function child(args, env = {}) {
  const c = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SMCP_API_KEY: KEY, SMCP_NODE_SECRET: NODE_SECRET, ...env },
  });
  children.push(c);
  const [line] = await once(createInterface({ input: c.stdout }), 'line');
  return { child: c, ...JSON.parse(line) };
}

const startSmcp = (extra = []) => child([...profileFlags(process.env.SMCP_PROF), SMCP, '--listen', '127.0.0.1:0', ...extra]);

async function peer(url, role, name, office) {
  const socket = io(`${url}/smcp`, { transports: ['websocket'], extraHeaders: { 'x-api-key': KEY }, reconnection: false, forceNew: true });
  await once(socket, 'connect');
  if (role === 'computer')
    socket.on('client:tool_call', (req, ack) => ack({ content: [{ type: 'text', text: req.params.message }], isError: false }));
  if (role) {
    const [ok, msg] = await new Promise((r) => socket.emit('server:join_office', { role, name, office_id: office }, (...a) => r(a)));
    if (!ok) throw new Error(`${role} ${name} join refused: ${msg}`);
  }
  return socket;
}

async function call(agent, computer) {
  const r = await agent.timeout(30_000).emitWithAck('client:tool_call', {
    agent: 'bench',
    req_id: randomUUID(),
    computer,
    tool_name: 'echo',
    params: { message: MESSAGE },
    timeout: 30,
  });
  // A fast wrong answer must not pass for a fast call.
  if (r.isError !== false || r.content?.[0]?.text !== MESSAGE) throw new Error(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
}

/** Calls per second with CONCURRENCY in flight, and the CPU each process spent per call (`self`: agent and computers). */
async function throughput(agent, computer, procs) {
  let next = 0;
  const { result: seconds, cpuMsPerCall } = await cpuPerCall(procs, THROUGHPUT_CALLS, async () => {
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < THROUGHPUT_CALLS) await call(agent, computer);
      }),
    );
    return Number(process.hrtime.bigint() - t0) / 1e9;
  });
  const rate = THROUGHPUT_CALLS / seconds;
  return { calls_per_second: round(rate), cpu_ms_per_call: cpuMsPerCall, cores_busy: coresBusy(rate, cpuMsPerCall) };
}

async function oneNode() {
  const smcp = await startSmcp();
  const echo = await child([join(REPO, 'bench/socketio-echo.mjs')]);
  await peer(smcp.url, 'computer', 'pc', 'bench');
  const agent = await peer(smcp.url, 'agent', 'bench', 'bench');
  const direct = await peer(`http://127.0.0.1:${echo.port}`);
  const [routed, hop] = await interleaved([() => call(agent, 'pc'), () => call(direct, 'pc')], N, WARMUP);
  emitComparison('smcp_server_tool_call_1k', N, WARMUP, routed, hop, { baseline: 'one bare Socket.IO hop (no router)' });
  emit({
    case: 'smcp_server_tool_call_1k_concurrent',
    n: THROUGHPUT_CALLS,
    warmup: 0,
    concurrency: CONCURRENCY,
    nodes: 1,
    ...(await throughput(agent, 'pc', { server: smcp.child.pid })),
  });
  return smcp;
}

async function twoNodes() {
  const redis = await startRedis();
  children.push(redis.child);
  const [n1, n2] = [await startSmcp(['--redis', redis.url]), await startSmcp(['--redis', redis.url])];
  await peer(n1.url, 'computer', 'near', 'bench');
  await peer(n2.url, 'computer', 'far', 'bench');
  const agent = await peer(n1.url, 'agent', 'bench', 'bench');
  const [cross, same] = await interleaved([() => call(agent, 'far'), () => call(agent, 'near')], N, WARMUP);
  emitComparison('smcp_server_tool_call_1k_cross_node', N, WARMUP, cross, same, {
    baseline: 'same-node call on the same Redis-backed node',
  });
  emit({
    case: 'smcp_server_tool_call_1k_concurrent_cross_node',
    n: THROUGHPUT_CALLS,
    warmup: 0,
    concurrency: CONCURRENCY,
    nodes: 2,
    ...(await throughput(agent, 'far', { server: n1.child.pid, server2: n2.child.pid, redis: redis.child.pid })),
  });
}

async function idleMemory() {
  const smcp = await startSmcp();
  // One settled connection first, so the baseline includes the Socket.IO machinery itself.
  await peer(smcp.url, 'computer', 'first', 'idle');
  const before = rssKb(smcp.child.pid);
  const sockets = [];
  for (let i = 0; i < IDLE; i += 50)
    sockets.push(
      ...(await Promise.all(Array.from({ length: 50 }, (_, k) => peer(smcp.url, 'computer', `c${i + k}`, `idle-${(i + k) % 10}`)))),
    );
  const after = rssKb(smcp.child.pid);
  emit({
    case: 'smcp_server_idle_computers',
    n: IDLE,
    warmup: 0,
    rss_before_kb: before,
    rss_after_kb: after,
    kb_per_computer: round((after - before) / IDLE),
  });
  for (const s of sockets) s.close();
}

try {
  await oneNode();
  await twoNodes();
  await idleMemory();
} finally {
  // Servers first, Redis last, so the nodes can leave cleanly.
  const redis = children.filter((c) => c.spawnargs[0] === 'redis-server');
  const stop = async (list) => {
    for (const c of list) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(list.map((c) => (c.exitCode !== null || c.signalCode ? null : once(c, 'exit'))));
  };
  await stop(children.filter((c) => !redis.includes(c)));
  await stop(redis);
  process.exit(0);
}

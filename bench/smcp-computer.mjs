#!/usr/bin/env node
// The core as an A2C-SMCP Computer: client:tool_call agent → mcpd-smcp → core → server-everything echo
// (1 KB), against the same call made directly into the core over gRPC (what `mcpdctl call` does), in
// interleaved rounds of one run; then 16 concurrent agent calls for throughput. JSON lines; nothing asserted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { io } from 'socket.io-client';
import { EVERYTHING, REPO, emit, emitComparison, interleaved, round, startCore } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const N = smoke ? 50 : 2000;
const WARMUP = smoke ? 20 : 1000;
const CONCURRENCY = 16;
const THROUGHPUT_CALLS = smoke ? 200 : 20_000;
const KEY = randomUUID();
const SMCP = join(REPO, 'dist/cmd/mcpd-smcp/main.js');

async function startSmcp() {
  const child = spawn(process.execPath, [SMCP, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, SMCP_API_KEY: KEY },
  });
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

async function joined(client) {
  const { ControlCalls } = await import(join(REPO, 'dist/internal/infra/rpc/control-client.js'));
  const calls = new ControlCalls(client);
  // The store watcher may not be watching yet this early: apply runtime.yaml the way `mcpdctl reload` does.
  const r = await calls.reload();
  if (!r.applied) throw new Error(`runtime.yaml rejected: ${r.issues.join('; ')}`);
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    const st = await calls.status();
    if (st.smcpComputers.some((c) => c.name === 'core' && c.state === 'joined')) return;
    await new Promise((r) => setTimeout(r, 50)); // polling a status, not synchronising a measurement
  }
  throw new Error('the core never joined the office');
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

const smcp = await startSmcp();
const world = await startCore({
  default: `servers:\n  - name: everything\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]\n    idleSeconds: 0\n`,
});
try {
  writeFileSync(
    join(world.store, 'runtime.yaml'),
    `smcp:\n  url: ${smcp.url}\n  apiKey: ${KEY}\n  office: bench\n  computers:\n    - { name: core, caller: bench }\n`,
  );
  await joined(world.client);
  const agent = await agentOf(smcp.url);
  const args = { message: 'x'.repeat(1024) };
  const [viaSmcp, direct] = await interleaved([() => agentCall(agent, args), () => directCall(world.client, args)], N, WARMUP);
  emitComparison('smcp_tool_call_echo_1k', N, WARMUP, viaSmcp, direct, { baseline: 'grpc CallTool into the core (mcpdctl call)' });

  // Throughput, 16 calls in flight, against the same concurrency straight into the core (alternating
  // halves, so drift of this shared VM hits both alike).
  const rate = async (call, calls) => {
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < calls) await call();
      }),
    );
    return { calls, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
  };
  const totals = { smcp: { calls: 0, seconds: 0 }, grpc: { calls: 0, seconds: 0 } };
  for (let half = 0; half < 2; half++) {
    for (const [k, call] of [
      ['smcp', () => agentCall(agent, args)],
      ['grpc', () => directCall(world.client, args)],
    ]) {
      const r = await rate(call, THROUGHPUT_CALLS / 2);
      totals[k].calls += r.calls;
      totals[k].seconds += r.seconds;
    }
  }
  const perSecond = (t) => t.calls / t.seconds;
  emit({
    case: 'smcp_tool_call_echo_1k_concurrent',
    n: THROUGHPUT_CALLS,
    warmup: 0,
    concurrency: CONCURRENCY,
    calls_per_second: round(perSecond(totals.smcp)),
    baseline_calls_per_second: round(perSecond(totals.grpc)),
    ratio: round(perSecond(totals.smcp) / perSecond(totals.grpc)),
    baseline: 'grpc CallTool into the core, same concurrency',
  });
  agent.close();
} finally {
  await world.stop();
  smcp.child.kill('SIGTERM');
  await new Promise((r) => (smcp.child.exitCode !== null ? r() : smcp.child.once('exit', r)));
}

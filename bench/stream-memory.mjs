#!/usr/bin/env node
// Memory per stream: the core's peak RSS growth while N concurrent tools/call each answer 4 MiB, through
// the real core and a real stdio server (test/fixtures/servers/raw-result.mjs, which answers from a
// cache), to a client that reads every answer. One JSON line per case; the baseline is the payload size:
// a ratio of 1 means the core held one payload's worth per call in flight.
// `--smoke`: one round, framed Session only. `MCPD_BENCH_DIST=/path/to/dist` measures another build.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, emit, percentile, round, rssKb, startCore } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const ROUNDS = smoke ? 1 : 3;
const N = 32;
const MIB = 4;
const RAW = join(REPO, 'test/fixtures/servers/raw-result.mjs');
const DIST = process.env.MCPD_BENCH_DIST ?? join(REPO, 'dist');

const profile =
  `servers:\n  - name: raw\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(RAW)}]\n` +
  `    idleSeconds: 0\n    maxConcurrent: ${N}\n`;
const RUNTIME = 'pingIntervalSeconds: 0\nmetricsAddress: 127.0.0.1:0\n';
const paramsFor = (mib) => `{"name":"raw__big","arguments":{"mb":${mib}}}`;
const hello = { caller: 'bench', pid: process.pid, clientName: 'stream-memory', previousSessionId: '' };

function peakKb(pid) {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** `n` calls at once answering `mib` MiB each; each answer is checked for its size and dropped (the client reads, keeps nothing). */
async function burst(session, transport, n, mib) {
  const params = paramsFor(mib);
  const one = () =>
    transport === 'framed'
      ? new Promise((resolve, reject) =>
          session.startRaw('tools/call', params, { result: (b) => resolve(b.length), error: reject, progress: () => {} }),
        )
      : session.requestRaw('tools/call', Buffer.from(params)).then((b) => b.length);
  const sizes = await Promise.all(Array.from({ length: n }, one));
  if (sizes.some((s) => s < mib * 1024 * 1024)) throw new Error(`a call answered ${Math.min(...sizes)} bytes`);
}

/** One round on a fresh core (a core's heap, once grown, stays grown): the peak of one burst over the RSS before it. */
async function round1(transport) {
  const { SessionClient } = await import(join(DIST, 'internal/contract/session/session-client.js'));
  const { openGrpcSession } = await import(join(DIST, 'internal/contract/grpc/grpc-session.js'));
  const core = await startCore({ default: profile }, 'callers: {}\n', { 'runtime.yaml': RUNTIME }, DIST);
  try {
    const session = transport === 'framed' ? await SessionClient.connect(core.socket, hello) : await openGrpcSession(core.client, hello);
    // Warm-up with small answers: the server started, the call path's code loaded and compiled.
    await burst(session, transport, N, 0.01);
    const before = rssKb(core.core.pid);
    writeFileSync(`/proc/${core.core.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    await burst(session, transport, N, MIB);
    const growthMiB = (peakKb(core.core.pid) - before) / 1024;
    session.close();
    return growthMiB;
  } finally {
    await core.stop();
  }
}

for (const transport of smoke ? ['framed'] : ['framed', 'grpc']) {
  const perStream = [];
  for (let r = 0; r < ROUNDS; r++) perStream.push((await round1(transport)) / N);
  perStream.sort((a, b) => a - b);
  const p50 = percentile(perStream, 50);
  emit({
    case: `memory_per_stream_${MIB}mib_${transport}`,
    n: N,
    rounds: ROUNDS,
    warmup: 1,
    unit: 'MiB of core peak RSS growth per concurrent call',
    p50: round(p50),
    p99: round(percentile(perStream, 99)),
    baseline_p50: MIB,
    ratio: round(p50 / MIB),
  });
}

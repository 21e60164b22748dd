#!/usr/bin/env node
// The ChurnMap measurement behind decision 46, re-runnable: a long-lived registry of requests in flight
// (16 at a time, each holding ~1 KB as a call holds its context, signal and line), entries coming and
// going as calls start and end, once with a V8 Map and once with ChurnMap. Each variant runs in its own
// node with --trace-gc-nvp; from its scavenges (after a warm-up that puts the registry in the old
// generation) come the bytes that survived a scavenge, the bytes promoted, and the pause.
//   churn_map_gc_map        the registry is a Map
//   churn_map_gc_churnmap   the registry is internal/shared/churn-map.ts (from dist/)
// One JSON line per case (bench conventions, lib.mjs emit): scavenges counted, p50/p99 pause (ms),
// mean survived and promoted bytes per scavenge, and for ChurnMap the ratios to the Map's.
// `--smoke` runs a few thousand requests. Nothing here asserts a number; docs/benchmarks.md records them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO, emit, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const child = process.argv.find((a) => a.startsWith('--child='))?.slice(8);
const REQUESTS = smoke ? 20_000 : 2_000_000;
const WARMUP = smoke ? 5_000 : 200_000;
const IN_FLIGHT = 16;

if (child) await workload(child);
else measure();

/** The child: start and end REQUESTS requests through one registry; marks where measuring begins. */
async function workload(kind) {
  const { ChurnMap } = await import(join(REPO, 'dist/internal/shared/churn-map.js'));
  const registry = kind === 'map' ? new Map() : new ChurnMap();
  const ids = [];
  const run = (n, from) => {
    for (let id = from; id < from + n; id++) {
      // What a call keeps while in flight: its line, its context, an abort controller.
      registry.set(id, {
        line: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"text":"${'x'.repeat(900)}"}}`,
        ctx: { id, started: id },
        abort: new AbortController(),
      });
      ids.push(id);
      if (ids.length > IN_FLIGHT) registry.delete(ids.shift());
    }
  };
  run(WARMUP, 0);
  // A full GC moves the long-lived registry (and its current table) to the old generation, as in a core
  // that has run for a while; what follows is the steady state.
  globalThis.gc?.();
  // On stdout, between the trace's own lines (a pipe's writes are synchronous in Node on Linux: in order).
  process.stdout.write('MEASURE\n');
  run(REQUESTS, WARMUP);
  process.stdout.write(`END ${registry.size}\n`);
}

function measure() {
  const self = fileURLToPath(import.meta.url);
  const results = {};
  for (const kind of ['map', 'churnmap']) {
    const r = spawnSync(process.execPath, ['--trace-gc-nvp', '--expose-gc', self, `--child=${kind}`, ...(smoke ? ['--smoke'] : [])], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`churn-map-gc child ${kind} failed (${r.status}): ${r.stderr.slice(-2000)}`);
    results[kind] = scavenges(r.stdout, r.stderr);
  }
  for (const kind of ['map', 'churnmap']) {
    const s = results[kind];
    const record = {
      case: `churn_map_gc_${kind}`,
      n: REQUESTS,
      warmup: WARMUP,
      scavenges: s.length,
      p50: percentile(
        s.map((x) => x.pause).sort((a, b) => a - b),
        50,
      ),
      p99: percentile(
        s.map((x) => x.pause).sort((a, b) => a - b),
        99,
      ),
      survived_bytes_mean: Math.round(mean(s.map((x) => x.survived))),
      promoted_bytes_mean: Math.round(mean(s.map((x) => x.promoted))),
      allocated_bytes_mean: Math.round(mean(s.map((x) => x.allocated))),
    };
    if (kind === 'churnmap') {
      const m = results.map;
      record.survived_ratio_to_map = round(mean(s.map((x) => x.survived)) / Math.max(1, mean(m.map((x) => x.survived))));
      record.pause_p50_ratio_to_map = round(
        record.p50 /
          Math.max(
            0.001,
            percentile(
              m.map((x) => x.pause).sort((a, b) => a - b),
              50,
            ),
          ),
      );
    }
    emit(record);
  }
}

/** The scavenges --trace-gc-nvp printed between the child's MEASURE and END marks. */
function scavenges(stdout, stderr) {
  const lines = stdout.split('\n');
  const start = lines.indexOf('MEASURE');
  const end = lines.findIndex((l) => l.startsWith('END '));
  if (start === -1 || end === -1) throw new Error(`churn-map-gc child did not finish: ${stderr.slice(-500)}`);
  const field = (l, k) => Number(new RegExp(` ${k}=([0-9.]+)`).exec(l)?.[1] ?? 0);
  return lines
    .slice(start + 1, end)
    .filter((l) => / gc=s /.test(l))
    .map((l) => ({
      pause: field(l, 'pause'),
      survived: field(l, 'new_space_survived'),
      promoted: field(l, 'promoted'),
      allocated: field(l, 'allocated'),
    }));
}

function mean(xs) {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

#!/usr/bin/env node
// Organizer benchmarks of the context channels (pure functions, from dist/):
//   organize_desktop_10k: organizeDesktop over 10,000 windows from 100 servers, 200-call history (target p50 ≤ 20 ms)
//   organize_finder_100k: organizeFinder over 100,000 documents from 100 servers, keyword + paging (target p50 ≤ 100 ms)
// One JSON line per case: {case, n, warmup, p50, p99, target_ms, machine}. `--smoke` uses tiny counts.
import { join } from 'node:path';
import { REPO, emit, measure, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const dist = (p) => import(join(REPO, 'dist/internal/domain', p));
const { organizeDesktop } = await dist('desktop/organize.js');
const { syntheticWindows, syntheticHistory } = await dist('desktop/synthetic-windows.js');
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

const N = smoke ? 5 : 200;
const WARMUP = smoke ? 2 : 30;

{
  // What GetDesktop does: the collected windows are the same objects from one request to the next.
  const windows = syntheticWindows(smoke ? 1000 : 10_000, 100);
  const history = syntheticHistory(200, 100);
  const t = await measure(() => organizeDesktop(windows, null, history), N, WARMUP);
  emit({ case: 'organize_desktop_10k', n: N, warmup: WARMUP, windows: windows.length, p50: round(percentile(t, 50)), p99: round(percentile(t, 99)), target_ms: 20 });
}

{
  // Cold: every window is new to the organizer (first request, or all 10,000 changed at once).
  const count = smoke ? 1000 : 10_000;
  const n = smoke ? 5 : 40;
  const warm = smoke ? 2 : 5;
  const history = syntheticHistory(200, 100);
  const times = [];
  for (let i = 0; i < n + warm; i++) {
    const windows = syntheticWindows(count, 100); // fresh objects, built outside the timing
    const t0 = process.hrtime.bigint();
    organizeDesktop(windows, null, history);
    if (i >= warm) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  emit({ case: 'organize_desktop_10k_cold', n, warmup: warm, windows: count, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), target_ms: 20 });
}

{
  const docs = syntheticDocuments(smoke ? 10_000 : 100_000, 100);
  const order = Array.from({ length: 30 }, (_, i) => `server-${String((i * 7) % 100).padStart(3, '0')}`);
  const n = smoke ? 5 : 100;
  const warm = smoke ? 2 : 10;
  const t = await measure((i) => organizeFinder(docs, i % 2 ? { keywords: ['budget', 'k7'], offset: 20, limit: 20 } : { offset: 0, limit: 20 }, order), n, warm);
  emit({ case: 'organize_finder_100k', n, warmup: warm, documents: docs.length, p50: round(percentile(t, 50)), p99: round(percentile(t, 99)), target_ms: 100 });
}

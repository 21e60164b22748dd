#!/usr/bin/env node
// Big-catalog benchmarks:
//   tool_search_5k            one query of the tool search mode's search tool over 5,000 real-shaped tools
//                             (index built once per catalog, as the core does); target p50 ≤ 2 ms.
//                             Baseline: a plain case-insensitive substring scan of the same catalog's names
//                             and descriptions for the query's first word, interleaved in the same process.
//   first_list_after_restart  the first tools/list through the control plane after a core restart, with the
//                             metadata cache persisted by the previous core; target ≤ 50 ms and 0 servers started.
//                             Baseline: the same first listing with no persisted cache (every server starts).
// One JSON line per case. `--smoke` uses tiny counts.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, MCPD, REPO, childrenMatching, emitComparison, interleaved, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const dist = (p) => import(join(REPO, 'dist', p));
const { toolCatalog } = await dist('test/fixtures/tool-catalog.js');
const { buildToolSnapshot } = await dist('internal/core/domain/aggregator/tool-snapshot.js');
const { ToolSearchCalls } = await dist('internal/core/app/tool-search-calls.js');
const { createControlClient, waitForReady, ControlCalls } = await dist('internal/contract/grpc/control-client.js');

const QUERIES = [
  'create a GitHub issue about a crash',
  'remove a Kubernetes pod',
  'translate this paragraph into German',
  'find Jira tickets about login failures',
  'schedule a meeting in Google Calendar',
  'show all open pull requests on GitHub',
  'refund a Stripe charge',
  'which Docker containers are there',
];

async function toolSearch() {
  const count = smoke ? 600 : 5000;
  const byServer = new Map();
  for (const t of toolCatalog(count)) {
    const list = byServer.get(t.server) ?? [];
    list.push({ name: t.name, definition: { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema } });
    byServer.set(t.server, list);
  }
  const servers = [...byServer.keys()].map((name) => ({
    name,
    transport: 'stdio',
    cmd: ['x'],
    env: {},
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
  }));
  const profile = {
    name: 'big',
    file: '/big.yaml',
    servers,
    inputs: [],
    namespace: { mode: 'prefix', separator: '__', maxLength: 64 },
    toolSearch: { pinned: [], maxResults: 5 },
  };
  const snap = buildToolSnapshot(profile, (s) => s, byServer);
  const calls = new ToolSearchCalls();
  calls.indexFor(snap.catalog);
  const texts = snap.catalog.map((t) => `${t.name} ${t.definition.description}`.toLowerCase());
  const search = (i) => calls.search(snap, profile.toolSearch, { query: QUERIES[i % QUERIES.length] });
  const scan = (i) => {
    const w = QUERIES[i % QUERIES.length].split(' ')[1].toLowerCase();
    return texts.filter((t) => t.includes(w)).length;
  };
  const n = smoke ? 20 : 2000;
  const warmup = smoke ? 5 : 200;
  const [measured, baseline] = await interleaved([search, scan], n, warmup);
  emitComparison('tool_search_5k', n, warmup, measured, baseline, { tools: snap.catalog.length, target_ms: 2 });
}

function spawnCore(store, socket) {
  const core = spawn(process.execPath, [MCPD, '--config', store, '--socket', socket], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  core.stderr.on('data', (d) => (log += d));
  return { core, log: () => log };
}

async function waitUp(client, c) {
  const until = Date.now() + 30_000;
  for (;;) {
    if (c.core.exitCode !== null) throw new Error(`core exited: ${c.log()}`);
    try {
      return await waitForReady(client, 200);
    } catch {
      if (Date.now() > until) throw new Error(`core did not come up: ${c.log()}`);
    }
  }
}

async function stopCore(c) {
  c.core.kill('SIGTERM');
  await new Promise((r) => (c.core.exitCode !== null ? r() : c.core.once('exit', r)));
}

/** One restart: start a core on `store`, time its first listing, count the echo servers it started. */
async function firstListing(store, socket) {
  const c = spawnCore(store, socket);
  const client = createControlClient(socket);
  try {
    await waitUp(client, c);
    const t0 = process.hrtime.bigint();
    const page = await new ControlCalls(client).listTools({ caller: 'bench', cursor: '', pageSize: 0 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (page.tools.length === 0) throw new Error('empty listing');
    const started = childrenMatching(c.core.pid, ECHO).length;
    // The same listing again: what is left of the first one's time beyond it is the fresh process warming up.
    const t1 = process.hrtime.bigint();
    await new ControlCalls(client).listTools({ caller: 'bench', cursor: '', pageSize: 0 });
    return { ms, started, againMs: Number(process.hrtime.bigint() - t1) / 1e6 };
  } finally {
    client.close();
    await stopCore(c);
  }
}

async function firstListAfterRestart() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-cache-'));
  const servers = [1, 2, 3, 4]
    .map(
      (i) =>
        `  - name: s${i}\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO)}]\n    env: { ECHO_TOOL_COUNT: "50", N: "${i}" }\n`,
    )
    .join('');
  const store = join(dir, 'store');
  mkdirSync(join(store, 'profiles'), { recursive: true });
  writeFileSync(join(store, 'profiles', 'default.yaml'), `servers:\n${servers}`);
  writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: ""\n');
  const socket = join(dir, 'run', 'control.sock');
  const stateDir = join(store, '.mcpd-state');
  const n = smoke ? 1 : 10;
  const warm = [];
  const cold = [];
  let started = 0;
  const again = [];
  try {
    for (let i = 0; i < n; i++) {
      // Cold: no cache on disk, every server starts (this run also writes the cache the warm run reads).
      rmSync(stateDir, { recursive: true, force: true });
      cold.push((await firstListing(store, socket)).ms);
      const w = await firstListing(store, socket);
      warm.push(w.ms);
      again.push(w.againMs);
      started += w.started;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  emitComparison(
    'first_list_after_restart',
    n,
    0,
    warm.sort((a, b) => a - b),
    cold.sort((a, b) => a - b),
    {
      servers: 4,
      servers_started_with_cache: started,
      second_list_p50: round(
        percentile(
          again.sort((a, b) => a - b),
          50,
        ),
      ),
      target_ms: 50,
    },
  );
}

await toolSearch();
await firstListAfterRestart();

#!/usr/bin/env node
// mcpd-docs benchmarks, against the real server (dist/cmd/mcpd-docs/main.js) over stdio with an SDK client:
//   docs_index_1000   indexing throughput: documents per second from spawn until the server's
//                     "indexed N document(s)" stderr line (printed once the initial scan is parsed),
//                     plus the time until resources/list returns every document
//   docs_read_l2      Level-2 resources/read latency (dpe://docs/<doc>/pages/0, cycling over every
//                     document) after warm-up, against a direct baseline in this process: reading
//                     the same file and JSON-decoding a payload of its text
// The folder holds 1,000 generated files (Markdown, text, CSV, JSON; 2–20 KB; some in sub-folders).
// One JSON line per case. `--smoke` uses tiny counts. Every process and the temp folder are removed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, emit, measure, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const FILES = smoke ? 40 : 1000;
const READS = smoke ? 20 : 500;
const WARMUP = smoke ? 10 : 200;
const DOCS = join(REPO, 'dist/cmd/mcpd-docs/main.js');

// ---- deterministic corpus -------------------------------------------------------------------
const WORDS =
  'budget roadmap hiring infra design review quarter team release customer metric latency storage network policy audit vendor contract launch backlog'.split(
    ' ',
  );
function words(seed, n) {
  let out = '';
  for (let k = 0; k < n; k++) out += (k ? ' ' : '') + WORDS[(seed * 31 + k * 17 + ((k * k) % 7)) % WORDS.length];
  return out;
}
const sentence = (seed) => `${words(seed, 12)}.`;

function markdown(i, size) {
  let s = `# Document ${i}: ${words(i, 3)}\n\n`;
  for (let sec = 0; s.length < size; sec++) {
    s += `## Section ${sec}\n\n${sentence(i + sec)} ${sentence(i + sec + 1)} ${sentence(i + sec + 2)}\n\n`;
    s += `- ${words(sec, 4)}\n- ${words(sec + 1, 5)}\n- ${words(sec + 2, 3)}\n\n`;
    if (sec % 3 === 0) s += '```js\nconst x = ' + sec + ';\nconsole.log(x);\n```\n\n';
  }
  return s;
}
function text(i, size) {
  let s = `Notes ${i}\n\n`;
  for (let p = 0; s.length < size; p++) s += `${sentence(i + p)} ${sentence(i + p + 3)} ${sentence(i + p + 5)}\n\n`;
  return s;
}
function csv(i, size) {
  let s = 'id,name,team,amount,date\n';
  for (let r = 0; s.length < size; r++)
    s += `${r},${WORDS[(i + r) % WORDS.length]} ${r},${WORDS[(r * 3) % WORDS.length]},${(r * 37) % 1000}.${r % 100},2024-0${1 + (r % 9)}-1${r % 10}\n`;
  return s;
}
function json(i, size) {
  const rows = [];
  for (let r = 0; JSON.stringify(rows).length < size - 200; r++)
    rows.push({
      id: r,
      name: `${WORDS[(i + r) % WORDS.length]} ${r}`,
      tags: [WORDS[r % WORDS.length], WORDS[(r + 5) % WORDS.length]],
      score: (r * 13) % 100,
    });
  return JSON.stringify(i % 2 ? rows : { title: `Dataset ${i}`, description: sentence(i), records: rows }, null, 1);
}
const KINDS = [
  ['md', markdown],
  ['txt', text],
  ['csv', csv],
  ['json', json],
];

/** Writes the corpus; returns [{ref, path}] in creation order. */
function writeCorpus(dir, count) {
  const files = [];
  for (let i = 0; i < count; i++) {
    const [ext, make] = KINDS[i % KINDS.length];
    const size = 2048 + ((i * 7919) % (18 * 1024)); // 2–20 KB
    const sub = i % 5 === 0 ? `team-${i % 10}` : '';
    if (sub) mkdirSync(join(dir, sub), { recursive: true });
    const ref = `${sub ? `${sub}/` : ''}doc-${String(i).padStart(4, '0')}.${ext}`;
    const path = join(dir, ref);
    const body = make(i, size);
    writeFileSync(path, body);
    files.push({ ref, path, ext, bytes: Buffer.byteLength(body) });
  }
  return files;
}

// ---- helpers ---------------------------------------------------------------------------------
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code !== 'ESRCH';
  }
}

async function waitGone(pid, ms) {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) {
      process.kill(pid, 'SIGKILL');
      throw new Error(`mcpd-docs (pid ${pid}) did not exit after close`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const uriOf = (ref, page) => `dpe://docs/${encodeURIComponent(ref)}${page === undefined ? '' : `/pages/${page}`}`;

// ---- run -------------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'mcpd-docs-bench-'));
let transport;
let pid;
try {
  const files = writeCorpus(dir, FILES);
  // BENCH_DOCS_NODE_ARGS lets a profiling run pass e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to the server.
  const nodeArgs = (process.env.BENCH_DOCS_NODE_ARGS ?? '').split(' ').filter(Boolean);
  transport = new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, DOCS, '--host', 'docs', dir], stderr: 'pipe' });
  let stderr = '';
  let indexedAt;
  let indexedCount;
  transport.stderr.on('data', (d) => {
    stderr += d;
    const m = /indexed (\d+) document\(s\)/.exec(stderr);
    if (m && indexedAt === undefined) {
      indexedAt = performance.now();
      indexedCount = Number(m[1]);
    }
  });
  const client = new Client({ name: 'bench-docs', version: '1' });
  const t0 = performance.now();
  await client.connect(transport); // the server answers initialize once the initial scan is indexed
  pid = transport.pid;
  const listed = await client.listResources();
  const tListed = performance.now();
  if (indexedAt === undefined) throw new Error(`mcpd-docs printed no "indexed" line:\n${stderr}`);
  if (indexedCount !== FILES || listed.resources.length !== FILES) {
    throw new Error(`expected ${FILES} documents, indexed ${indexedCount}, listed ${listed.resources.length}:\n${stderr.slice(-2000)}`);
  }
  const indexSeconds = (indexedAt - t0) / 1000;
  emit({
    case: 'docs_index_1000',
    n: 1,
    warmup: 0,
    documents: FILES,
    bytes: files.reduce((a, f) => a + f.bytes, 0),
    index_ms: round(indexedAt - t0),
    docs_per_second: round(FILES / indexSeconds),
    list_complete_ms: round(tListed - t0),
    load1: round(loadavg()[0]),
  });

  // Level-2 reads, cycling over every document; the baseline reads the same files in-process.
  const read = (i) => client.readResource({ uri: uriOf(files[i % files.length].ref, 0) });
  const first = await read(0);
  if (!first.contents?.[0]?.text) throw new Error(`empty Level-2 read: ${JSON.stringify(first).slice(0, 300)}`);
  JSON.parse(first.contents[0].text); // Level 2 in the default format is JSON
  const t = await measure(read, READS, WARMUP);
  const b = await measure(
    async (i) => {
      const f = files[i % files.length];
      const body = await readFile(f.path, 'utf8');
      return f.ext === 'json' ? JSON.parse(body) : JSON.parse(JSON.stringify({ text: body }));
    },
    READS,
    WARMUP,
  );
  emit({
    case: 'docs_read_l2',
    n: READS,
    warmup: WARMUP,
    documents: FILES,
    p50: round(percentile(t, 50)),
    p99: round(percentile(t, 99)),
    baseline: 'readFile + JSON decode of the same file, in process',
    baseline_p50: round(percentile(b, 50)),
    baseline_p99: round(percentile(b, 99)),
    ratio: round(percentile(t, 50) / percentile(b, 50)),
    load1: round(loadavg()[0]),
  });
  await client.close();
} finally {
  // Ignored: tearing down after the measurement; the numbers are already out.
  await transport?.close().catch(() => undefined);
  if (pid !== undefined) await waitGone(pid, 5000);
  rmSync(dir, { recursive: true, force: true });
}

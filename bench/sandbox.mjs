#!/usr/bin/env node
// Sandbox benchmarks (docs/benchmarks.md "Sandbox"): what running a stdio server in mcpd's bubblewrap
// sandbox costs, against the same server unsandboxed, interleaved in the same process. One JSON line per case.
//   sandbox_start      launch → MCP handshake done (mcpd's launcher: spawn, era probe, initialize) of the
//                      echo fixture: unsandboxed (baseline), sandboxed without network, sandboxed with a
//                      network.allow (bubblewrap + the node network bridge inside + mcpd's proxy)
//   sandbox_rss        RSS of the server's whole process group after the handshake (KiB, median)
//   sandbox_hop        tools/call `echo` round trip through the launched session, sandboxed vs not
//   --srt=CLI          also starts the server under @anthropic-ai/sandbox-runtime's `srt` CLI (path to its
//                      dist/cli.js; needs socat) for the comparison in docs/decisions.md
// `--smoke` runs tiny counts.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, REPO, emit, emitComparison, interleaved, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const srt = process.argv.find((a) => a.startsWith('--srt='))?.slice(6);
const STARTS = smoke ? 2 : 12;
const CALLS = smoke ? 20 : 400;
const { createLauncher } = await import(join(REPO, 'dist/internal/core/infra/mcp/launcher.js'));

const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-sandbox-'));
const base = {
  transport: 'stdio',
  env: {},
  cwd: dir,
  headers: {},
  disabled: false,
  forbiddenTools: [],
  toolMeta: {},
  strategy: 'stateless',
  maxConcurrent: 8,
  maxInstances: 1,
  minReady: 0,
  idleSeconds: 0,
  activationMode: 'on-demand',
  sessionTTLSeconds: 60,
  drainTimeoutSeconds: 2,
  callTimeoutSeconds: 30,
};
const cmd = ['node', ECHO];
const variants = {
  none: { ...base, name: 'plain', cmd },
  bwrap: { ...base, name: 'bwrap', cmd, sandbox: { read: [], write: [], allow: [] } },
  bwrap_net: { ...base, name: 'bwrapnet', cmd, sandbox: { read: [], write: [], allow: ['127.0.0.1:9', 'example.com'] } },
};
if (srt) {
  const settings = join(dir, 'srt.json');
  writeFileSync(
    settings,
    JSON.stringify({
      network: { allowedDomains: ['example.com'], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [dir], denyWrite: [] },
    }),
  );
  variants.srt = { ...base, name: 'srt', cmd: ['node', srt, '--settings', settings, '--', ...cmd] };
}

/** Sum of RSS (KiB) of every process in the group `pgid`. */
function groupRssKb(pgid) {
  let kb = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      // the process ended while we looked
    }
  }
  return kb;
}

const launcher = createLauncher({ reaper: false, sandboxProtectedPaths: () => [dir] });
let seq = 0;
const rss = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
const starter = (key) => async () => {
  const session = await launcher.launch(variants[key], { instanceId: `b${seq++}` });
  rss[key].push(groupRssKb(session.pid));
  await session.close(0);
};
const keys = Object.keys(variants);
const starts = await interleaved(
  keys.map((k) => starter(k)),
  STARTS,
  1,
  STARTS,
);
keys.forEach((k, i) => {
  if (k !== 'none') emitComparison(`sandbox_start_${k}`, STARTS, 1, starts[i], starts[0]);
});
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
for (const k of keys)
  emit({ case: `sandbox_rss_${k}`, n: rss[k].length, rss_kb_p50: median(rss[k]), added_kb_p50: round(median(rss[k]) - median(rss.none)) });

const sessions = await Promise.all(keys.map((k) => launcher.launch(variants[k], { instanceId: `hop-${k}` })));
const hops = await interleaved(
  sessions.map((s) => () => s.callTool('echo', { text: 'x' }, { timeoutMs: 30_000 })),
  CALLS,
  smoke ? 2 : 50,
);
keys.forEach((k, i) => {
  if (k !== 'none') emitComparison(`sandbox_hop_${k}`, CALLS, smoke ? 2 : 50, hops[i], hops[0]);
});
await launcher.shutdown();
rmSync(dir, { recursive: true, force: true });

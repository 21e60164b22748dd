#!/usr/bin/env node
// Desktop Bridge benchmarks on a real headless desktop (Xvfb + private session bus + AT-SPI), through the
// real host (dist/cmd/mcpd-desktop-host/main.js --socket) over one long-lived connection:
//   desktop_observe          desktop.observe of the GTK fixture (tree + screenshot + evidence files)
//   desktop_find_300         desktop.find on gtk3-widget-factory (~300 accessible nodes)
//   desktop_click_roundtrip  desktop.confirm.issue + desktop.click (token) on the fixture's button
//   desktop_backend_cold     a new LinuxBackend (session bus → a11y bus) and its first tree of the fixture
//   desktop_session_cold     Xvfb + session bus + GTK app visible in the AT-SPI tree + first tree read
// Each host case is interleaved with its baseline: the same backend operation called in this process
// (no socket, no evidence, no tokens), so `ratio` is the host's own cost. `--smoke` uses tiny counts.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO, emit, emitComparison, interleaved, measure, percentile, round } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const N = smoke ? 3 : 40;
const WARMUP = smoke ? 1 : 5;
const COLD_N = smoke ? 1 : 5;
const HOST = join(REPO, 'dist/cmd/mcpd-desktop-host/main.js');
const { HeadlessDesktop, FIXTURE_APP } = await import(join(REPO, 'dist/test/fixtures/desktop/headless-desktop.js'));
const { LinuxBackend } = await import(join(REPO, 'dist/internal/desktop-host/linux/linux-backend.js'));
const { BridgeClient } = await import(join(REPO, 'dist/internal/contract/desktop-bridge/bridge-client.js'));
const FACTORY = 'gtk3-widget-factory';

const bounds = () => ({ maxDepth: 32, maxNodes: 2000, deadlineMs: Date.now() + 30_000 });

async function waitForSocket(path, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mcpd-desktop-host exited with ${child.exitCode}`);
    const ok = await new Promise((r) => {
      const c = connect(path);
      c.once('connect', () => (c.destroy(), r(true)));
      c.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function sessionCold() {
  const times = [];
  for (let i = 0; i < COLD_N; i++) {
    const d = new HeadlessDesktop();
    const t0 = process.hrtime.bigint();
    await d.start();
    await d.launchFixture();
    const b = new LinuxBackend(d.env());
    await b.snapshot({ app: { name: FIXTURE_APP } }, bounds());
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await b.close();
    await d.stop();
  }
  return times.sort((a, b) => a - b);
}

const desk = new HeadlessDesktop();
let host;
let client;
const direct = [];
try {
  const cold = await sessionCold();
  emit({
    case: 'desktop_session_cold',
    n: COLD_N,
    warmup: 0,
    p50: round(percentile(cold, 50)),
    p99: round(percentile(cold, 99)),
    what: 'Xvfb + session bus + GTK app in the AT-SPI tree + first tree read',
    load1: round(loadavg()[0]),
  });

  await desk.start();
  await desk.launchFixture();
  await desk.launch(FACTORY, [], FACTORY);
  const ws = join(desk.dir, 'ws');
  mkdirSync(ws);
  const socket = join(desk.dir, 'run', 'bridge.sock');
  host = spawn(process.execPath, [HOST, '--socket', socket, '--workspace-root', desk.dir], {
    env: desk.env(),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForSocket(socket, host);
  client = await BridgeClient.connect(socket);
  const meta = () => ({ schemaVersion: 1, requestId: randomUUID(), workspacePath: ws, timeoutMs: 60_000 });
  const backend = new LinuxBackend(desk.env());
  direct.push(backend);
  const fixture = { app: { name: FIXTURE_APP } };
  const factory = { app: { name: FACTORY } };

  const factoryTree = await backend.snapshot(factory, bounds());
  const [obs, obsBase] = await interleaved(
    [
      () => client.call('desktop.observe', { meta: meta(), route: fixture }),
      async () => {
        await backend.snapshot(fixture, bounds());
        // The backend returns the PNG and the host writes it (evidence through folder handles): the baseline writes it too.
        const { png } = await backend.screenshot({ timeoutMs: 30_000 });
        await writeFile(join(desk.dir, 'baseline.png'), png);
      },
    ],
    N,
    WARMUP,
  );
  emitComparison('desktop_observe', N, WARMUP, obs, obsBase, {
    baseline: 'LinuxBackend snapshot + import in process',
    load1: round(loadavg()[0]),
  });

  const selector = { byRole: 'AXButton', titleContains: 'no such button' }; // walks the whole tree, matches nothing
  const [find, findBase] = await interleaved(
    [() => client.call('desktop.find', { meta: meta(), route: factory, selector }), () => backend.snapshot(factory, bounds())],
    N,
    WARMUP,
  );
  emitComparison('desktop_find_300', N, WARMUP, find, findBase, {
    nodes: factoryTree.nodes.length,
    truncated: factoryTree.truncated,
    baseline: 'LinuxBackend snapshot in process',
    load1: round(loadavg()[0]),
  });

  const { elementRefs } = await client.call('desktop.find', {
    meta: meta(),
    route: fixture,
    selector: { byRole: 'AXButton', titleContains: 'Increment' },
  });
  const params = { route: fixture, target: { elementRef: { elementId: elementRefs[0].elementId } } };
  const [click, clickBase] = await interleaved(
    [
      async () => {
        const { token } = await client.call('desktop.confirm.issue', { meta: meta(), intent: { method: 'desktop.click', params } });
        await client.call('desktop.click', { ...params, meta: meta(), confirm: { token } });
      },
      () => backend.press(elementRefs[0].elementId),
    ],
    N,
    WARMUP,
  );
  emitComparison('desktop_click_roundtrip', N, WARMUP, click, clickBase, {
    baseline: 'LinuxBackend press (Action.DoAction) in process',
    load1: round(loadavg()[0]),
  });

  const coldBackend = await measure(
    async () => {
      const b = new LinuxBackend(desk.env());
      await b.snapshot(fixture, bounds());
      await b.close();
    },
    N,
    WARMUP,
  );
  emit({
    case: 'desktop_backend_cold',
    n: N,
    warmup: WARMUP,
    p50: round(percentile(coldBackend, 50)),
    p99: round(percentile(coldBackend, 99)),
    what: 'new LinuxBackend: session bus, a11y bus address, first fixture tree',
    load1: round(loadavg()[0]),
  });
} finally {
  client?.close();
  for (const b of direct) await b.close();
  if (host && host.exitCode === null) {
    host.kill('SIGTERM');
    await new Promise((r) => host.once('exit', r));
  }
  await desk.stop();
  rmSync(desk.dir, { recursive: true, force: true });
}

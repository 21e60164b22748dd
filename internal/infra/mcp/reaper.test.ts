import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from './process-group.js';
import { everythingPath, fixturePath, fixtureSpec, processGone, repoRoot, stdioSpec, waitFor } from './test-support.js';

// Node 20 cannot run TypeScript: transpile the launcher and the domain it imports into a scratch
// directory under the repo (so node_modules resolves) for the child "core" process.
const out = join(repoRoot(), 'node_modules/.cache', `mcpd-reaper-test-${process.pid}`);

function transpileDir(rel: string): void {
  const src = join(repoRoot(), rel);
  mkdirSync(join(out, rel), { recursive: true });
  for (const f of readdirSync(src)) {
    if (!f.endsWith('.ts') || f.endsWith('.test.ts')) continue;
    const js = ts.transpileModule(readFileSync(join(src, f), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(out, rel, f.replace(/\.ts$/, '.js')), js);
  }
}

let core: ChildProcess | undefined;
let groups: number[] = [];

beforeAll(() => {
  transpileDir('internal/domain');
  transpileDir('internal/infra/mcp');
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
});

afterAll(async () => {
  core?.kill('SIGKILL');
  for (const g of groups) {
    for (const p of liveGroupMembers(g)) process.kill(p.pid, 'SIGKILL');
  }
  rmSync(out, { recursive: true, force: true });
});

describe('reaper sidecar', () => {
  it('kills every server group, grandchildren included, when the core is SIGKILLed', async () => {
    const specs = [
      stdioSpec('everything', [process.execPath, everythingPath(), 'stdio']),
      fixtureSpec('stubborn', 'grandchild.mjs'),
    ];
    core = spawn(process.execPath, [fixturePath('core.mjs'), join(out, 'internal/infra/mcp/launcher.js'), JSON.stringify(specs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      core?.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(buf.split('\n')[0]);
      });
      core?.once('exit', (code) => reject(new Error(`core exited early (${code})`)));
    });
    const { pids, reaper } = JSON.parse(line) as { pids: number[]; reaper: number };
    groups = pids;
    expect(pids).toHaveLength(2);
    expect(reaper).toBeGreaterThan(0);
    // Before the kill: both groups are alive and the stubborn one holds a grandchild.
    const before = pids.flatMap((g) => liveGroupMembers(g));
    expect(liveGroupMembers(pids[1]).length).toBeGreaterThanOrEqual(2);
    expect(pids.every((g) => liveGroupMembers(g).length > 0)).toBe(true);

    core.kill('SIGKILL');
    await waitFor(() => pids.every((g) => liveGroupMembers(g).length === 0), 'every server group to die with the core', 15_000, 100);
    for (const p of before) expect(processGone(p.pid)).toBe(true);
    await waitFor(() => processGone(reaper), 'the reaper to exit', 5000);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from './process-group.js';
import {
  everythingPath,
  fixturePath,
  fixtureSpec,
  processGone,
  repoRoot,
  stdioSpec,
  waitFor,
} from '../../../../test/support/mcp-sessions.js';
import { must } from '../../../shared/must.js';

// The child "core" runs the compiled launcher (the suite's global set-up builds dist/).
const launcherJs = join(repoRoot(), 'dist/internal/core/infra/mcp/launcher.js');

let core: ChildProcess | undefined;
let groups: number[] = [];

afterAll(async () => {
  core?.kill('SIGKILL');
  for (const g of groups) {
    for (const p of liveGroupMembers(g)) process.kill(p.pid, 'SIGKILL');
  }
});

describe('reaper sidecar', () => {
  it('kills every server group, grandchildren included, when the core is SIGKILLed', async () => {
    const specs = [stdioSpec('everything', [process.execPath, everythingPath(), 'stdio']), fixtureSpec('stubborn', 'grandchild.mjs')];
    core = spawn(process.execPath, [fixturePath('core.mjs'), launcherJs, JSON.stringify(specs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      core?.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const end = buf.indexOf('\n');
        if (end >= 0) resolve(buf.slice(0, end));
      });
      core?.once('exit', (code) => reject(new Error(`core exited early (${code})`)));
    });
    const { pids, reaper } = JSON.parse(line) as { pids: number[]; reaper: number };
    groups = pids;
    expect(pids).toHaveLength(2);
    expect(reaper).toBeGreaterThan(0);
    // Before the kill: both groups are alive and the stubborn one holds a grandchild.
    const before = pids.flatMap((g) => liveGroupMembers(g));
    expect(liveGroupMembers(must(pids[1], 'the stubborn group')).length).toBeGreaterThanOrEqual(2);
    expect(pids.every((g) => liveGroupMembers(g).length > 0)).toBe(true);

    core.kill('SIGKILL');
    await waitFor(() => pids.every((g) => liveGroupMembers(g).length === 0), 'every server group to die with the core', 15_000, 100);
    for (const p of before) expect(processGone(p.pid)).toBe(true);
    await waitFor(() => processGone(reaper), 'the reaper to exit', 5000);
  });
});

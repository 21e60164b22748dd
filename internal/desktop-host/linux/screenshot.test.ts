import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/procs.js';
import { LinuxBackend } from './linux-backend.js';

/** Whether a process with this pid still exists (signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// An `import` that hangs as a huge screen's did: the backend must stop it at the request's bounds and kill it.
describe('LinuxBackend.screenshot is bounded', () => {
  const bin = mkdtempSync(join(tmpdir(), 'mcpd-import-'));
  const pidFile = join(bin, 'pid');
  writeFileSync(join(bin, 'import'), `#!/bin/sh\necho $$ > ${JSON.stringify(pidFile)}\nexec sleep 30\n`);
  chmodSync(join(bin, 'import'), 0o755);
  const backend = new LinuxBackend({ DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` });
  const started = () => Number(readFileSync(pidFile, 'utf8'));
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('honours the timeout it is given (what is left of meta.timeoutMs) and kills import', async () => {
    rmSync(pidFile, { force: true });
    const e = await backend.screenshot({ timeoutMs: 500 }).catch((x: Error) => x);
    expect(String(e)).toMatch(/import failed: timed out after 500 ms; it was killed/);
    expect(alive(started())).toBe(false);
  });

  it("stops at the request's abort and kills import", async () => {
    rmSync(pidFile, { force: true });
    const ac = new AbortController();
    const shot = backend.screenshot({ timeoutMs: 60_000, signal: ac.signal }).catch((x: Error) => x);
    // The script writes its pid first thing: once it is there, import runs.
    await waitFor('import to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'));
    ac.abort();
    expect(String(await shot)).toMatch(/it was killed/);
    // SIGKILL was sent at the abort; the answer may come before the kernel has torn the process down.
    const pid = started();
    await waitFor(`import (pid ${pid}) to be gone`, () => !alive(pid), 5000);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCPD } from '../support/paths.js';

/**
 * A core started on a full disk. The disk is real: a 64 KiB tmpfs, mounted inside a private user and
 * mount namespace (`unshare --user --map-root-user --mount`: no privilege on the host is needed, the
 * namespace's root is the test's own user, and the mount vanishes with the namespace), then filled
 * with `dd` until the kernel answers ENOSPC. Every write after that fails the way a full disk does,
 * deterministically. The script runs the core there and then lists what it left on the filesystem.
 */
const scratch = mkdtempSync(join(tmpdir(), 'mcpd-disk-full-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const STORE_FILES: Record<string, string> = {
  'profiles/default.yaml': 'servers: []\n',
  'callers.yaml': 'callers: {}\n',
  'runtime.yaml': 'metricsAddress: ""\n',
};

function writeStore(dir: string): void {
  for (const [name, text] of Object.entries(STORE_FILES)) {
    mkdirSync(join(dir, name, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, name), text, { mode: 0o600 });
  }
}

/** Mounts a full tmpfs at `mnt`, runs `mcpd --config STORE --socket SOCKET` there, lists the tmpfs. */
function onFullDisk(mnt: string, store: string, socket: string): { code: number | null; out: string } {
  const script = [
    'set -u',
    'mount -t tmpfs -o size=64k,mode=700 tmpfs "$MNT"',
    // A store on the full disk is written before it fills.
    'if [ -n "$STORE_ON_MNT" ]; then cp -r "$STORE_SRC" "$STORE"; fi',
    'dd if=/dev/zero of="$MNT/fill" bs=1k count=1024 2>/dev/null',
    'echo "--- core"',
    // Bounded: a core that (wrongly) started must not hang the test.
    'timeout 60 "$NODE" "$MCPD" --config "$STORE" --socket "$SOCKET" 2>&1',
    'echo "--- exit $?"',
    'find "$MNT" -mindepth 1 | sort',
  ].join('\n');
  const src = join(scratch, 'store-src');
  rmSync(src, { recursive: true, force: true });
  writeStore(src);
  const onMnt = store.startsWith(mnt);
  if (!onMnt) {
    rmSync(store, { recursive: true, force: true });
    writeStore(store);
  }
  mkdirSync(mnt, { recursive: true });
  const r = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'bash', '-c', script], {
    encoding: 'utf8',
    env: {
      ...process.env,
      MNT: mnt,
      STORE: store,
      STORE_SRC: src,
      STORE_ON_MNT: onMnt ? '1' : '',
      SOCKET: socket,
      NODE: process.execPath,
      MCPD,
    },
    timeout: 90_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const canMount = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'true']).status === 0;

describe.skipIf(!canMount)('a core started on a full disk', () => {
  it('names the start key it could not write, says the disk is full and what to do, and leaves no temp file (store on the full disk)', () => {
    const mnt = join(scratch, 'full-store');
    const { code, out } = onFullDisk(mnt, join(mnt, 'store'), join(mnt, 'mcpd.sock'));
    expect(code).toBe(0);
    const key = join(mnt, 'store/.mcpd-state/core.start-key');
    expect(out).toContain('--- exit 1');
    expect(out).toContain(`mcpd: cannot write the start key ${key}: no space left on device (ENOSPC); free space on the filesystem of`);
    expect(out).toContain('and start again');
    expect(out).not.toMatch(/start-key\.\d+\./);
  });

  it('the same for the socket start key when only the socket directory is full', () => {
    const mnt = join(scratch, 'full-socket');
    const { code, out } = onFullDisk(mnt, join(scratch, 'store-ok'), join(mnt, 'mcpd.sock'));
    expect(code).toBe(0);
    expect(out).toContain('--- exit 1');
    expect(out).toContain(`mcpd: cannot write the start key ${join(mnt, 'mcpd.sock.start-key')}: no space left on device (ENOSPC)`);
    expect(out).not.toMatch(/start-key\.\d+\./);
  });
});

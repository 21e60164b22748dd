import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';

/**
 * Runs before each test file (vitest.config.ts `setupFiles`): the file and every process it starts with
 * the usual `{ ...process.env }` get directories of their own under the run's temp root
 * (global-setup.ts), never the user's defaults. Without this, a core or client started without an explicit
 * path would use the per-user default socket (`/run/user/<uid>/mcpd/control.sock`, else
 * `/tmp/mcpd-<uid>/control.sock`; `internal/contract/session/socket-path.ts`) and the dashboard record beside
 * it, the user's store (`$XDG_CONFIG_HOME/mcpd`), or the user's desktop session — and so see, or disturb,
 * whatever mcpd the developer (or another test run) has running. A test about the defaults strips these
 * variables itself and must cope with a default socket it did not start.
 */
const root = inject('mcpdTestRoot');
const dir = mkdtempSync(join(root, 'f-'));
chmodSync(dir, 0o755); // tests that run a command as another user reach their files through it
const home = join(dir, 'home');
const runtime = join(dir, 'xdg-run');
const tmp = join(dir, 'tmp');
mkdirSync(home, { mode: 0o755 });
mkdirSync(tmp, { mode: 0o755 });
mkdirSync(runtime, { mode: 0o700 });

// npm keeps using the user's cache and settings (registry, proxy): a fresh HOME must not make `npm ci` in
// the install test download everything again, or lose a registry mirror.
const userHome = process.env.HOME;
if (userHome) {
  process.env.npm_config_cache ??= join(userHome, '.npm');
  process.env.npm_config_userconfig ??= join(userHome, '.npmrc');
}

// The places the developer's shell may name for mcpd (a store, its state directory; the socket is set below),
// and the developer's desktop session (desktop tests start a private headless one: test/fixtures/desktop).
// Test knobs (MCPD_TEST_*, MCPD_FUZZ_SEED, MCPD_CHURN_CYCLES …) pass through.
for (const k of ['MCPD_CONFIG', 'MCPD_STATE_DIR', 'MCPD_STORE_DIR', 'DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS']) {
  delete process.env[k];
}

Object.assign(process.env, {
  // The default socket of this file: a core or client that names none meets only this file's.
  MCPD_SOCKET: join(dir, 'run', 'control.sock'),
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_RUNTIME_DIR: runtime,
  TMPDIR: tmp,
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

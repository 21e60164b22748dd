import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { SandboxSpec } from '../../../../contract/model/sandbox.js';

/** System folders every sandbox reads (programs, libraries, certificates, resolver config). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix/store'];
/** Files under /etc a server has no business reading even as root. */
const HIDDEN_SYSTEM_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers'];
/** Package caches under HOME that npx, uvx and pipx start servers from: readable, never writable. */
const HOME_CACHES = ['.npm', '.cache/uv', '.local/share/uv', '.local/pipx', '.local/share/pipx', '.cache/pip'];
/** Where the proxy socket appears inside the sandbox. */
export const SANDBOX_SOCKET = '/run/mcpd-sandbox/proxy.sock';
/** Script files whose package stays readable when they are a server's arguments. */
const SCRIPT_EXT = /\.(m?js|cjs|ts|mts|py)$/;

export interface BwrapPlan {
  sandbox: SandboxSpec;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** mcpd's own paths (store, state, control socket and dashboard token folder): hidden whatever the grants say. */
  protectedPaths: string[];
  /** The proxy's unix socket outside, when the sandbox allows some hosts. */
  proxySocket?: string;
  /** node, for the network bridge. */
  execPath: string;
}

type Mount = { kind: 'ro' | 'rw' | 'tmpfs'; src?: string; dest: string };

const within = (path: string, dir: string): boolean => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
const depth = (p: string): number => p.split(sep).filter(Boolean).length;
const real = (p: string): string | undefined => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

/** `command` as the kernel will find it: on PATH, or relative to the server's cwd. */
function resolveCommand(command: string, env: Record<string, string>, cwd: string): string | undefined {
  if (command.includes('/')) return real(resolve(cwd, command));
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const hit = join(dir, command);
    if (existsSync(hit)) return hit;
  }
  return undefined;
}

/** The folder a runtime or package lives in: `…/bin/x` → `…`, a script → the nearest folder with a manifest. */
function installRoot(file: string): string {
  const dir = dirname(file);
  if (dir.endsWith(`${sep}bin`)) return dirname(dir);
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    if (['package.json', 'pyproject.toml', 'setup.py'].some((m) => existsSync(join(d, m)))) return d;
  }
  return dir;
}

/** What the server needs to run, read-only: its program (through symlinks), node, script packages, caches. */
function runtimeReads(plan: BwrapPlan, home: string | undefined): string[] {
  const out: string[] = [];
  const add = (p: string | undefined): void => {
    if (p && !SYSTEM_DIRS.some((d) => within(p, d)) && p !== '/' && p !== home) out.push(p);
  };
  const program = resolveCommand(plan.command, plan.env, plan.cwd);
  if (program) {
    add(dirname(program));
    const target = real(program);
    if (target) add(installRoot(target));
  }
  add(installRoot(realpathSync(plan.execPath)));
  for (const a of plan.args) {
    if (!SCRIPT_EXT.test(a)) continue;
    const file = real(isAbsolute(a) ? a : resolve(plan.cwd, a));
    if (file && statSync(file).isFile()) add(installRoot(file));
  }
  if (home) for (const c of HOME_CACHES) if (existsSync(join(home, c))) add(join(home, c));
  return out;
}

/**
 * The bubblewrap arguments for one sandboxed server: an empty root with the system folders read-only,
 * a private /tmp and HOME (tmpfs, gone with the instance), the runtime and grants bound on top (parents
 * before children, so a narrower grant wins), mcpd's own paths hidden again, and a network namespace
 * of its own whose only way out is the proxy socket.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const home = plan.env.HOME && isAbsolute(plan.env.HOME) ? plan.env.HOME : undefined;
  const mounts: Mount[] = [{ kind: 'tmpfs', dest: '/tmp' }];
  if (home && home !== '/') mounts.push({ kind: 'tmpfs', dest: home });
  for (const p of runtimeReads(plan, home)) mounts.push({ kind: 'ro', src: p, dest: p });
  if (existsSync(plan.cwd)) mounts.push({ kind: 'ro', src: plan.cwd, dest: plan.cwd });
  for (const p of plan.sandbox.read) mounts.push({ kind: 'ro', src: p, dest: p });
  for (const p of plan.sandbox.write) mounts.push({ kind: 'rw', src: p, dest: p });
  mounts.sort((a, b) => depth(a.dest) - depth(b.dest));
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-net'];
  for (const d of SYSTEM_DIRS) args.push(...systemBind(d));
  for (const f of HIDDEN_SYSTEM_FILES) if (existsSync(f)) args.push('--ro-bind', '/dev/null', f);
  args.push('--proc', '/proc', '--dev', '/dev');
  for (const m of mounts) args.push(...mountArgs(m));
  args.push(...masks(plan, mounts));
  if (plan.proxySocket) args.push('--bind', plan.proxySocket, SANDBOX_SOCKET);
  args.push('--chdir', plan.cwd, '--setenv', 'TMPDIR', '/tmp');
  return args;
}

/** A system folder, or the symlink it is (Debian's /bin → usr/bin), as it is outside. */
function systemBind(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const target = real(dir);
  if (target && target !== dir) return ['--symlink', target, dir];
  return ['--ro-bind', dir, dir];
}

function mountArgs(m: Mount): string[] {
  if (m.kind === 'tmpfs') return ['--tmpfs', m.dest];
  return [m.kind === 'ro' ? '--ro-bind-try' : '--bind-try', m.src ?? m.dest, m.dest];
}

/**
 * mcpd's own paths under any bound folder are covered again (an empty tmpfs for a folder, /dev/null
 * for a file or socket), and grants strictly inside them are bound once more on top.
 */
function masks(plan: BwrapPlan, mounts: Mount[]): string[] {
  const out: string[] = [];
  const sources = mounts.filter((m) => m.kind !== 'tmpfs').map((m) => m.dest);
  for (const p of plan.protectedPaths) {
    if (!existsSync(p) || !sources.some((s) => within(p, s))) continue;
    out.push(...(statSync(p).isDirectory() ? ['--tmpfs', p] : ['--ro-bind', '/dev/null', p]));
    for (const m of mounts) if (m.kind !== 'tmpfs' && m.dest !== p && within(m.dest, p)) out.push(...mountArgs(m));
  }
  return out;
}

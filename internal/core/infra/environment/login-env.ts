import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import { cappedTimeout } from '../../../shared/timer-limit.js';

/** What resolving the user's login environment gave. */
export interface LoginEnvironment {
  /** The shell asked, as it was run (e.g. "/bin/bash -l -i"). */
  shell: string;
  /** Its environment; undefined when it could not be had (`problem` says why). */
  env?: Record<string, string>;
  problem?: string;
}

/** As long as VS Code gives a login shell to print its environment before it gives up. */
const LOGIN_ENV_TIMEOUT_MS = 10_000;

/** The shell a login gives the user: $SHELL, else the passwd entry's, else /bin/sh. */
function loginShell(env: NodeJS.ProcessEnv): string {
  if (env.SHELL) return env.SHELL;
  try {
    return userInfo().shell || '/bin/sh';
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the POSIX shell.
    return '/bin/sh';
  }
}

/**
 * A login shell that is also interactive: most users export their tokens in ~/.bashrc or ~/.zshrc,
 * which only interactive shells read (Debian's ~/.bashrc returns at once otherwise), and a login shell
 * reads ~/.profile / ~/.zprofile. csh-likes take no -l together with -c.
 */
function shellArgs(shell: string): string[] {
  return /^t?csh$/.test(basename(shell)) ? ['-i'] : ['-l', '-i'];
}

/**
 * The environment a login shell of the user's $SHELL sets, the way editors resolve it (VS Code runs
 * `$SHELL -i -l -c` and reads the environment it prints): whatever client started the
 * core, its servers see what the user's shell would give them. The shell's own output (greetings,
 * prompts) is told apart by a random mark; stdin is closed, so a profile that reads input ends; after
 * `timeoutMs` the shell's whole process group is killed and the core goes on with its own environment.
 */
export function resolveLoginEnvironment(env: NodeJS.ProcessEnv, timeoutMs = LOGIN_ENV_TIMEOUT_MS): Promise<LoginEnvironment> {
  const shell = loginShell(env);
  const args = shellArgs(shell);
  const described = [shell, ...args].join(' ');
  const mark = randomBytes(12).toString('hex');
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const finish = (r: Omit<LoginEnvironment, 'shell'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ shell: described, ...r });
    };
    const child = spawn(shell, [...args, '-c', printEnvCommand(mark)], {
      // Profiles may look for this to skip slow or noisy parts (VS Code sets VSCODE_RESOLVING_ENVIRONMENT).
      env: { ...env, MCPD_RESOLVING_ENVIRONMENT: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    const timer = cappedTimeout(() => {
      killGroup(child.pid);
      finish({ problem: `it did not finish within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.once('error', (e) => finish({ problem: e.message }));
    child.once('close', (code) => finish(parsed(out, mark, code)));
  });
}

/**
 * Prints the environment between two marks: GNU `env -0` on Linux (NUL-separated, so values may hold
 * newlines; no second program to start), elsewhere a Node process printing it as JSON, as VS Code does.
 */
function printEnvCommand(mark: string): string {
  const body =
    process.platform === 'linux' ? 'env -0' : `${quote(process.execPath)} -e ${quote('process.stdout.write(JSON.stringify(process.env))')}`;
  return `printf '%s' ${mark}; ${body}; printf '%s' ${mark}`;
}

function parsed(out: string, mark: string, code: number | null): Omit<LoginEnvironment, 'shell'> {
  const from = out.indexOf(mark);
  const to = out.lastIndexOf(mark);
  if (from < 0 || to <= from) return { problem: `it printed no environment (exit code ${code})` };
  const body = out.slice(from + mark.length, to);
  const env = body.startsWith('{') ? fromJson(body) : fromNulSeparated(body);
  if (!env) return { problem: 'its environment could not be read' };
  delete env.MCPD_RESOLVING_ENVIRONMENT;
  return { env };
}

function fromNulSeparated(body: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of body.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

function fromJson(body: string): Record<string, string> | undefined {
  try {
    return JSON.parse(body) as Record<string, string>;
  } catch {
    // Something interleaved with the printed JSON (a background job of the profile writing to stdout).
    return undefined;
  }
}

/** A POSIX single-quoted word (also read right by fish and csh for these paths and this script). */
function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone: the shell ended between the timeout and this kill.
  }
}

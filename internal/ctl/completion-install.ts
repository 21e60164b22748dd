import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { McpdError } from '../shared/errors.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function isShell(s: string | undefined): s is Shell {
  return SHELLS.includes(s as Shell);
}

/** Where a shell finds a user's completion script, and what (if anything) the user adds to load it. */
interface Target {
  file: string;
  activate: string;
}

/** An XDG base directory: the variable when it holds an absolute path (the spec ignores others), else the default. */
function xdg(env: NodeJS.ProcessEnv, name: 'XDG_DATA_HOME' | 'XDG_CONFIG_HOME', fallback: string): string {
  const v = env[name];
  return v && isAbsolute(v) ? v : join(home(env), fallback);
}

function home(env: NodeJS.ProcessEnv): string {
  const h = env.HOME;
  if (!h || !isAbsolute(h)) throw new McpdError('FAILED_PRECONDITION', 'HOME is not set to an absolute path: cannot tell where to install');
  return h;
}

/** Each shell's user-level place: bash-completion's user directory, a zsh $fpath directory, fish's own. */
function targetFor(shell: Shell, env: NodeJS.ProcessEnv): Target {
  if (shell === 'bash') {
    const user = env.BASH_COMPLETION_USER_DIR && isAbsolute(env.BASH_COMPLETION_USER_DIR) ? env.BASH_COMPLETION_USER_DIR : undefined;
    const file = join(user ?? join(xdg(env, 'XDG_DATA_HOME', '.local/share'), 'bash-completion'), 'completions', 'mcpdctl');
    return {
      file,
      activate:
        'open a new bash: the bash-completion package loads it on the first <Tab>. Without that package, add this line to ~/.bashrc:\n' +
        `  source ${file}\n`,
    };
  }
  if (shell === 'zsh') {
    const file = join(xdg(env, 'XDG_DATA_HOME', '.local/share'), 'zsh', 'site-functions', '_mcpdctl');
    return {
      file,
      activate:
        'add this line to ~/.zshrc, then open a new zsh (if ~/.zshrc runs compinit already, put only the fpath part before it):\n' +
        `  fpath=(${dirname(file)} $fpath); autoload -Uz compinit && compinit\n`,
    };
  }
  const file = join(xdg(env, 'XDG_CONFIG_HOME', '.config'), 'fish', 'completions', 'mcpdctl.fish');
  return { file, activate: 'fish loads it by itself in every new session: nothing to add.\n' };
}

/**
 * `mcpdctl completion install [shell]`: writes the script where that shell (default: the one $SHELL
 * names) looks for a user's completions, creating the directory, and says how it gets loaded.
 */
export function installCompletion(
  asked: string | undefined,
  script: (shell: Shell) => string,
  write: (s: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const shell = asked ?? basename(env.SHELL ?? '');
  if (!isShell(shell)) {
    const why = asked ? `"${asked}" is not one of them` : `SHELL is ${env.SHELL ? `"${env.SHELL}"` : 'not set'}`;
    throw new McpdError('INVALID_ARGUMENT', `say which shell: mcpdctl completion install <${SHELLS.join('|')}> (${why})`);
  }
  const { file, activate } = targetFor(shell, env);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, script(shell), { mode: 0o644 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new McpdError(
      'FAILED_PRECONDITION',
      `cannot write ${file} (${code}); fix that directory's permissions, or save the output of "mcpdctl completion ${shell}" yourself`,
    );
  }
  write(`wrote the ${shell} completion for mcpdctl to ${file}\nto activate: ${activate}`);
  return 0;
}

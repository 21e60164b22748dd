import { execFile } from 'node:child_process';

/**
 * Runs a command without a shell; its stderr is part of the error so doctor and failures say what broke.
 * Only the subcommand is named, never the other arguments: `xdotool type` carries the user's text.
 */
export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 10_000, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) =>
    // `signal` kills the command at once (typing stops mid-chunk on an abort).
    execFile(cmd, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, signal }, (err, stdout, stderr) => {
      if (!err) return resolve(String(stdout));
      // err.message repeats the whole command line: describe the failure without it.
      const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
      const why =
        e.code === 'ENOENT'
          ? 'ENOENT: not found on PATH'
          : e.killed
            ? `timed out after ${timeoutMs} ms`
            : String(stderr).trim() || `exit ${e.code ?? e.signal}`;
      reject(new Error(`${cmd} ${args[0] ?? ''} failed: ${why}`));
    }),
  );
}

/** The contract's key names (macOS flavoured) → X keysyms for xdotool. */
const KEYSYMS: Readonly<Record<string, string>> = {
  cmd: 'ctrl',
  command: 'ctrl',
  control: 'ctrl',
  ctrl: 'ctrl',
  option: 'alt',
  alt: 'alt',
  shift: 'shift',
  super: 'super',
  enter: 'Return',
  return: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  space: 'space',
  backspace: 'BackSpace',
  delete: 'Delete',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
};

export function keyCombo(keys: string[]): string {
  return keys.map((k) => KEYSYMS[k.toLowerCase()] ?? k).join('+');
}

/** Width and height from a PNG's IHDR chunk (bytes 16–23). */
export function pngSize(buf: Buffer): { width: number; height: number } {
  if (buf.length < 24 || buf.toString('latin1', 1, 4) !== 'PNG') throw new Error('the screenshot is not a PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * Runs a command for its stdout bytes: killed (SIGKILL) at `timeoutMs`, at the signal, or when it writes more
 * than `maxBytes`; the error says which.
 */
export function runBytes(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  o: { timeoutMs: number; signal?: AbortSignal; maxBytes: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile(
      cmd,
      args,
      { env, timeout: o.timeoutMs, killSignal: 'SIGKILL', maxBuffer: o.maxBytes, encoding: 'buffer', signal: o.signal },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
        const why =
          e.code === 'ENOENT'
            ? 'ENOENT: not found on PATH'
            : e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
              ? `its output passed ${o.maxBytes} bytes; it was killed`
              : o.signal?.aborted
                ? 'stopped (the request was aborted or reached meta.timeoutMs); it was killed'
                : e.killed
                  ? `timed out after ${o.timeoutMs} ms; it was killed`
                  : String(stderr).trim() || `exit ${e.code ?? e.signal}`;
        reject(new Error(`${cmd} failed: ${why}`));
      },
    ),
  );
}

/** The visible X windows of `pid` with their titles, oldest first (there is no window manager to ask). */
export async function windowsOfPid(pid: number, env: NodeJS.ProcessEnv): Promise<{ id: string; title: string }[]> {
  // xdotool search fails when nothing matches: no ids.
  const ids = (await run('xdotool', ['search', '--onlyvisible', '--pid', String(pid)], env).catch(() => '')).split('\n').filter(Boolean);
  return Promise.all(
    // Ignored: a window that closed while we looked has no name; an empty title matches no title pattern.
    ids.map(async (id) => ({ id, title: (await run('xdotool', ['getwindowname', id], env).catch(() => '')).replace(/\n$/, '') })),
  );
}

/** Gives the X input focus to the window. */
export async function focusWindow(id: string, env: NodeJS.ProcessEnv): Promise<void> {
  await run('xdotool', ['windowfocus', '--sync', id], env);
}

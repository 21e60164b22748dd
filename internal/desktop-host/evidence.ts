import { constants } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { BridgeError } from '../contract/desktop-bridge/errors.js';

/** `YYYY-MM-DD` in UTC, the day folder of the evidence layout. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = constants;

/**
 * A path that names `name` inside the directory open as `dir`, whatever happens to the directory's own path
 * meanwhile: /proc/self/fd/N is the opened directory itself, so this is openat(2) relative to a handle
 * (Node has no openat). With O_NOFOLLOW the last component must not be a link.
 */
const within = (dir: FileHandle, name: string) => `/proc/self/fd/${dir.fd}/${name}`;

function forbidden(message: string, details: Record<string, unknown> = {}): BridgeError {
  return new BridgeError('DESKTOP_WORKSPACE_FORBIDDEN', message, details);
}

/**
 * One execution's evidence folder: <workspace>/artifacts/desktop/YYYY-MM-DD/<executionId>/ (contract 2.2).
 * Every folder on the way is created and opened one component at a time from the opened workspace, never
 * following a link, and the files are created relative to the opened execution folder with O_NOFOLLOW: a
 * link planted anywhere on the way (an `artifacts` link, the execution folder swapped for a link during a
 * waitUntil, an `observe.png` link) cannot redirect a write outside the workspace.
 */
export class Evidence {
  readonly dir: string;
  private folder: Promise<FileHandle> | undefined;

  constructor(
    private readonly workspaceReal: string,
    readonly executionId: string,
    private readonly now: () => number,
  ) {
    this.dir = join(workspaceReal, 'artifacts', 'desktop', dayOf(now()), executionId);
  }

  private ensure(): Promise<FileHandle> {
    this.folder ??= this.openFolder();
    return this.folder;
  }

  private async openFolder(): Promise<FileHandle> {
    let dir = await openDir(this.workspaceReal, this.workspaceReal);
    let shown = this.workspaceReal;
    for (const part of this.dir.slice(this.workspaceReal.length + 1).split('/')) {
      shown = join(shown, part);
      try {
        await mkdir(within(dir, part), { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        const next = await openDir(within(dir, part), shown);
        await dir.close();
        dir = next;
      } catch (e) {
        await dir.close();
        throw e;
      }
    }
    return dir;
  }

  /** The execution is over: the folder's handle is let go. */
  async close(): Promise<void> {
    // Ignored: a folder that never opened has no handle to close, and its error was the execution's to report.
    const f = await this.folder?.catch(() => undefined);
    this.folder = undefined;
    await f?.close();
  }

  /** Writes a file of the folder (0600), never through a link. */
  async writeBytes(name: string, data: string | Uint8Array, append = false): Promise<string> {
    const dir = await this.ensure();
    const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC);
    const f = await open(within(dir, name), flags, 0o600).catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ELOOP' ? forbidden(`${join(this.dir, name)} is a link; evidence is never written through one: remove it`) : e;
    });
    try {
      const st = await f.stat();
      if (!st.isFile()) throw forbidden(`${join(this.dir, name)} is not a regular file; remove it`);
      await f.chmod(0o600);
      await f.writeFile(data);
    } finally {
      await f.close();
    }
    return name;
  }

  async writeJson(name: string, value: unknown): Promise<string> {
    return this.writeBytes(name, `${JSON.stringify(value, null, 2)}\n`);
  }

  /** trace.jsonl: one event per line, with the host's time. */
  async trace(event: string, data: Record<string, unknown> = {}): Promise<void> {
    await this.writeBytes('trace.jsonl', `${JSON.stringify({ t: new Date(this.now()).toISOString(), event, ...data })}\n`, true);
  }
}

/** Opens a directory, refusing a link (ELOOP) or anything else that is not a directory (ENOTDIR). */
async function openDir(path: string, shown: string): Promise<FileHandle> {
  try {
    return await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      // Linux says ENOTDIR for a link opened O_DIRECTORY | O_NOFOLLOW: tell the two apart for the message.
      const link =
        code === 'ELOOP' ||
        (await lstat(path).then(
          (st) => st.isSymbolicLink(),
          () => false,
        ));
      throw forbidden(
        `the evidence folder ${shown} is ${link ? 'a link' : 'not a directory'}; evidence never goes through one: remove it`,
        {
          resolved: shown,
        },
      );
    }
    throw e;
  }
}

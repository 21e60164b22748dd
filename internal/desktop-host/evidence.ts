import { appendFile, chmod, mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BridgeError } from '../contract/desktop-bridge/errors.js';
import { isWithin } from './workspace.js';

/** `YYYY-MM-DD` in UTC, the day folder of the evidence layout. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * One execution's evidence folder: <workspace>/artifacts/desktop/YYYY-MM-DD/<executionId>/ (contract 2.2).
 * Created lazily and checked again after creation, so an `artifacts` symlink planted inside the workspace
 * cannot redirect writes outside it.
 */
export class Evidence {
  readonly dir: string;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly workspaceReal: string,
    readonly executionId: string,
    private readonly now: () => number,
  ) {
    this.dir = join(workspaceReal, 'artifacts', 'desktop', dayOf(now()), executionId);
  }

  private ensure(): Promise<void> {
    this.ready ??= (async () => {
      // Check the existing ancestors before creating anything, so not even a folder lands outside.
      const parts = this.dir.slice(this.workspaceReal.length + 1).split('/');
      for (let i = 1; i <= parts.length; i++) {
        // Ignored: a path that does not exist yet cannot escape the workspace through a link.
        const real = await realpath(join(this.workspaceReal, ...parts.slice(0, i))).catch(() => undefined);
        if (real === undefined) break;
        this.checkInside(real);
      }
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.checkInside(await realpath(this.dir));
    })();
    return this.ready;
  }

  private checkInside(real: string): void {
    if (!isWithin(this.workspaceReal, real))
      throw new BridgeError(
        'DESKTOP_WORKSPACE_FORBIDDEN',
        `the evidence folder resolves to ${real}, outside the workspace; remove the link`,
        {
          resolved: real,
        },
      );
  }

  /** A path inside the folder for a backend to write (screenshots). */
  /**
   * A path for a tool to write (a screenshot), created empty and 0600 first: the tool truncates and keeps the
   * mode, where one creating the file would follow the umask (observe.png was 0644).
   */
  async pathFor(name: string): Promise<string> {
    await this.ensure();
    const path = join(this.dir, name);
    await writeFile(path, '', { mode: 0o600 });
    await chmod(path, 0o600);
    return path;
  }

  async writeJson(name: string, value: unknown): Promise<string> {
    await this.ensure();
    await writeFile(join(this.dir, name), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    return name;
  }

  /** trace.jsonl: one event per line, with the host's time. */
  async trace(event: string, data: Record<string, unknown> = {}): Promise<void> {
    await this.ensure();
    await appendFile(join(this.dir, 'trace.jsonl'), `${JSON.stringify({ t: new Date(this.now()).toISOString(), event, ...data })}\n`, {
      mode: 0o600,
    });
  }
}

import { rmSync } from 'node:fs';
import { readStateFile, stateFileIds, writeStateFile } from '../state-file.js';
import { join } from 'node:path';
import { TERMINAL_STATUSES, type TaskView } from '../../../contract/model/tasks.js';
import { isJsonObject } from '../../../shared/json.js';

/** A task as the journal keeps it: whose it is, what it was last seen as, and when it may be forgotten. */
export interface SavedTask {
  caller: string;
  view: TaskView;
  /** Epoch ms; absent while it ran. */
  expiresAt?: number;
}

const TASK_ID = /^[\w-]{16,64}$/;
/** The largest task file read back (a result is a tool result: a few MiB at most in practice). */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

/**
 * The core's tasks on disk (`<state dir>/tasks/<id>.json`, the user's own, 0600): written when a task starts
 * and when it ends, so a core that restarts can tell a client what became of its task — the result of one
 * that ended, and for one that was running, that it failed because the core stopped. Files past their
 * `ttlMs` are deleted when read.
 */
export class TaskJournal {
  constructor(
    readonly dir: string,
    private readonly warn: (message: string, fields?: Record<string, unknown>) => void,
  ) {}

  save(t: SavedTask): void {
    try {
      writeStateFile(this.file(t.view.taskId), JSON.stringify({ version: 1, ...t }));
    } catch (e) {
      // The task itself goes on; only what a restart could tell of it is lost.
      this.warn('task not saved; a core restart will not know it', { task: t.view.taskId, error: (e as Error).message });
    }
  }

  remove(taskId: string): void {
    rmSync(this.file(taskId), { force: true });
  }

  /** Every saved task still within its ttlMs; expired and unreadable files are removed. */
  loadAll(now = Date.now()): SavedTask[] {
    const out: SavedTask[] = [];
    for (const id of stateFileIds(this.dir, TASK_ID)) {
      const saved = this.read(id);
      if (!saved || (saved.expiresAt !== undefined && saved.expiresAt <= now)) {
        this.remove(id);
        continue;
      }
      out.push(saved);
    }
    return out;
  }

  private read(id: string): SavedTask | undefined {
    const file = this.file(id);
    try {
      const v: unknown = JSON.parse(readStateFile(file, MAX_FILE_BYTES));
      if (!isJsonObject(v) || v.version !== 1 || typeof v.caller !== 'string' || !isJsonObject(v.view)) throw new Error('not a task file');
      const view = v.view as unknown as TaskView;
      if (view.taskId !== id || !(TERMINAL_STATUSES.has(view.status) || view.status === 'working' || view.status === 'input_required'))
        throw new Error('not a task file');
      return { caller: v.caller, view, ...(typeof v.expiresAt === 'number' ? { expiresAt: v.expiresAt } : {}) };
    } catch (e) {
      this.warn('task file refused; it is removed', { file, error: (e as Error).message });
      return undefined;
    }
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`);
  }
}

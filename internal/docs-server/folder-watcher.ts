import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import { formatFor } from './parsers/index.js';

export type FolderEvent = 'add' | 'change' | 'unlink';

/** Hidden files and folders, editor lock files (~$x.xlsx, .#x) and unsupported extensions are not documents. */
function isCandidate(p: string): boolean {
  const base = path.basename(p);
  return !base.startsWith('.') && !base.startsWith('~$') && formatFor(base) !== undefined;
}

/**
 * Watches the document folders (recursively). Existing files arrive as 'add' events before
 * `ready` resolves, so the initial scan and later changes take the same path.
 */
export function watchFolders(
  dirs: readonly string[],
  onEvent: (ev: FolderEvent, absPath: string) => void,
): { ready: Promise<void>; close: () => Promise<void> } {
  const watcher: FSWatcher = watch([...dirs], {
    ignoreInitial: false,
    persistent: true,
    // Half-written saves would otherwise be parsed (and fail) mid-write.
    awaitWriteFinish: { stabilityThreshold: 120, pollInterval: 40 },
    ignored: (p, stats) => {
      if (dirs.some((d) => path.resolve(d) === path.resolve(p))) return false;
      if (path.basename(p).startsWith('.')) return true;
      return stats?.isFile() === true && !isCandidate(p);
    },
  });
  for (const ev of ['add', 'change', 'unlink'] as const) {
    watcher.on(ev, (p: string) => {
      if (isCandidate(p)) onEvent(ev, path.resolve(p));
    });
  }
  const ready = new Promise<void>((resolve, reject) => {
    watcher.once('ready', () => resolve());
    watcher.once('error', reject);
  });
  return { ready, close: () => watcher.close() };
}

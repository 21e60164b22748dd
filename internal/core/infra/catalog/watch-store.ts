import { watch } from 'chokidar';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { loadStore } from '../../../store/load-store.js';
import type { LoadOptions, LoadResult } from '../../../store/types.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';

export interface WatchOptions extends Pick<LoadOptions, 'env' | 'envDescription'> {
  /** Quiet period before reloading; editors write several events per save. */
  debounceMs?: number;
}

export interface StoreWatcher {
  /** Resolves once the watcher sees the files; edits before that may be missed. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const STORE_FILES = new Set(['callers.yaml', 'runtime.yaml']);

/** Only the store's own files: the store may be a project root full of other things (node_modules). */
function isStorePath(dir: string, path: string): boolean {
  const p = resolve(path);
  if (p === dir || p === join(dir, 'profiles')) return false;
  if (dirname(p) === dir) return !STORE_FILES.has(basename(p));
  if (dirname(p) === join(dir, 'profiles')) return !/\.ya?ml$/.test(p) || basename(p).startsWith('.');
  return true;
}

/**
 * Reloads the store after every change (edits, renames, added or removed profiles) and hands each
 * result to `onResult`. An invalid result is delivered as ok:false; keeping the old store is the
 * caller's job. Loads never overlap; a change during a load triggers one more load.
 */
export function watchStore(dir: string, onResult: (r: LoadResult) => void, opts: WatchOptions = {}): StoreWatcher {
  const abs = resolve(dir);
  const debounceMs = opts.debounceMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  let loading: Promise<void> | undefined;
  let dirty = false;
  /** A file changed while a load read it: that load may have seen a half-written file. */
  let stale = false;
  let closed = false;

  const run = async (): Promise<void> => {
    do {
      dirty = false;
      stale = false;
      const before = await storeStamp(abs);
      const r = await loadStore(abs, { env: opts.env, envDescription: opts.envDescription, scaffold: false });
      // A stale result is dropped, not delivered: an editor writing in place truncates first, and an
      // empty profile read then is valid — delivering it would stop that profile's servers. The
      // watcher's event for that write can come after the load, so the files' stamps are compared too;
      // a change seen only there loads again at once.
      const after = await storeStamp(abs);
      if (after !== before) dirty = true;
      // A load that fell between an in-place write's truncate and its write sees the same empty file
      // before and after: an empty store file is delivered only once it has stayed so for one debounce.
      else if (after.includes(EMPTY_FILE) && (await settledStamp(abs, debounceMs)) !== after) dirty = true;
      if (!closed && !dirty && !stale) onResult(r);
    } while (dirty && !closed);
    loading = undefined;
  };
  const schedule = (): void => {
    if (closed) return;
    if (loading) stale = true;
    if (timer) clearTimeout(timer);
    timer = cappedTimeout(() => {
      timer = undefined;
      if (loading) dirty = true;
      else loading = run();
    }, debounceMs);
  };

  const watcher = watch(abs, {
    ignoreInitial: true,
    depth: 1,
    ignored: (path) => isStorePath(abs, path),
  });
  watcher.on('all', schedule);
  const ready = new Promise<void>((res) => watcher.once('ready', () => res()));
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await watcher.close();
      await loading;
    },
  };
}

/** What a stamp line (`path\0size\0mtime`) holds for a file of 0 bytes. */
const EMPTY_FILE = '\u00000\u0000';

/** The store's stamp after waiting `ms`. */
async function settledStamp(dir: string, ms: number): Promise<string> {
  await new Promise<void>((r) => cappedTimeout(r, ms));
  return storeStamp(dir);
}

/** Size and modification time (ns) of every store file: equal stamps, equal contents as far as a load can tell. */
async function storeStamp(dir: string): Promise<string> {
  const profiles = join(dir, 'profiles');
  const names = await readdir(profiles).catch(() => [] as string[]);
  const files = [
    join(dir, 'callers.yaml'),
    join(dir, 'runtime.yaml'),
    ...names.map((n) => join(profiles, n)).filter((p) => !isStorePath(dir, p)),
  ];
  const stamps = await Promise.all(
    files.map((f) =>
      stat(f, { bigint: true }).then(
        (st) => `${f}\u0000${st.size}\u0000${st.mtimeNs}`,
        () => `${f}\u0000-`,
      ),
    ),
  );
  return stamps.join('\n');
}

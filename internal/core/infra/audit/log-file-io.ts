import { close, open as openFd, rename as renameCb, write, writeFile as writeFileCb } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { rotatedFile } from '../../../contract/audit/audit-files.js';

// The audit log's files as the writer uses them: appends and replacements by callbacks (its hot path), what
// is at a file's ends when a core opens a log it did not write (the first seq, the last line), and rotation.

/**
 * Appends `bytes` to `file`, opened by its path (a log moved or replaced is followed) and closed after.
 * By callbacks: fs/promises' appendFile costs a FileHandle, its events and a promise per step, per batch.
 */
export function appendBytes(file: string, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    openFd(file, 'a', (e, fd) => {
      if (e) return reject(e);
      const finish = (err: Error | null) => close(fd, (closing) => ((err ?? closing) ? reject(err ?? closing) : resolve()));
      // A short write (rare on a file) goes on from where it stopped, as appendFile does.
      const from = (at: number): void =>
        write(fd, bytes, at, bytes.length - at, null, (we, n) => (we ? finish(we) : at + n < bytes.length ? from(at + n) : finish(null)));
      from(0);
    });
  });
}

/**
 * Writes `text` (mode 0600) beside `path`, then renames it over `path`: a reader sees the old file or the new
 * one, never half of it. By callbacks, as `appendBytes`: this runs once per batch.
 */
export function replaceFile(path: string, text: string): Promise<void> {
  const aside = `${path}.tmp`;
  return new Promise((resolve, reject) => {
    writeFileCb(aside, text, { mode: 0o600 }, (e) => (e ? reject(e) : renameCb(aside, path, (r) => (r ? reject(r) : resolve()))));
  });
}

function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return 0;
      throw e;
    },
  );
}

async function endsWithNewline(file: string): Promise<boolean> {
  const h = await open(file, 'r');
  try {
    const { size } = await h.stat();
    const b = Buffer.alloc(1);
    await h.read(b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    await h.close();
  }
}

/** The seq of a file's first entry, or undefined when it has none (or there is no file). */
export async function firstSeqIn(file: string | undefined): Promise<number | undefined> {
  const h = file === undefined ? undefined : await openIfThere(file);
  if (!h) return undefined;
  try {
    // The keys are sorted and `seq` comes late: read on until the first line is whole (arguments in clear make long lines).
    // Up to the size it has: a device (/dev/full) reads on for ever.
    const { size } = await h.stat();
    let text = '';
    for (let pos = 0; pos < size && !text.includes('\n');) {
      const b = Buffer.alloc(Math.min(64 * 1024, size - pos));
      const { bytesRead } = await h.read(b, 0, b.length, pos);
      if (bytesRead === 0) break;
      text += b.toString('utf8', 0, bytesRead);
      pos += bytesRead;
    }
    const seq = (JSON.parse(text.split('\n')[0] ?? '') as { seq?: unknown }).seq;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined; // a torn or foreign first line: verify names it
  } finally {
    await h.close();
  }
}

/** The last non-empty line of a file, or undefined when there is none (or no file). */
async function lastLine(file: string): Promise<string | undefined> {
  const h = await openIfThere(file);
  if (!h) return undefined;
  try {
    const { size } = await h.stat();
    // Read backwards in growing windows until a whole line is in sight (arguments in clear make long lines).
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const b = Buffer.alloc(size - start);
      await h.read(b, 0, b.length, start);
      const lines = b
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '');
      if (lines.length > 1 || start === 0) return lines.at(-1);
    }
  } finally {
    await h.close();
  }
}

/** The file opened for reading, or undefined when it does not exist. */
async function openIfThere(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * audit.jsonl → audit.jsonl.1 → … → audit.jsonl.<keep>; the oldest beyond `keep` is deleted. When one was,
 * the first seq of the file now oldest (where the log starts); else undefined.
 */
export async function rotateLogFiles(file: string, keep: number): Promise<number | undefined> {
  const oldest = rotatedFile(file, keep);
  const deletes = await sizeOf(oldest).then((n) => n > 0);
  await rm(oldest, { force: true });
  for (let k = keep - 1; k >= 1; k--) await rename(rotatedFile(file, k), rotatedFile(file, k + 1)).catch(ignoreMissing);
  await rename(file, rotatedFile(file, 1));
  return deletes ? firstSeqIn(oldest) : undefined;
}

/** The hash and seq of the entry a log's last line holds; undefined for a torn or foreign line. */
export function chainEndIn(line: string): { hash: string; seq: number } | undefined {
  try {
    const e = JSON.parse(line) as { hash?: unknown; seq?: unknown };
    return typeof e.hash === 'string' && typeof e.seq === 'number' ? { hash: e.hash, seq: e.seq } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a writer opening the log finds at its end (its folder made first): the newest file's size, whether its
 * last line is cut, and the log's last line (the newest file's, or the one before it when that is empty).
 */
export async function logEnd(file: string): Promise<{ size: number; torn: boolean; last: string | undefined }> {
  await mkdir(dirname(file), { recursive: true });
  const last = (await lastLine(file)) ?? (await lastLine(rotatedFile(file, 1)));
  const size = await sizeOf(file);
  return { size, torn: size > 0 && !(await endsWithNewline(file)), last };
}

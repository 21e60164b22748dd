import { Worker } from 'node:worker_threads';
import type { DocLimits } from './doc-limits.js';
import { ParseError, type ParsedContent } from './parsers/types.js';
import { ParsePool } from './parse-pool.js';

type Reply = { ok: true; content: ParsedContent } | { ok: false; message: string };

/**
 * One pool for the process: every folder's reads and parses share it (--parse-workers). The index takes a
 * slot before it reads a file, so many files at once wait for a slot instead of each holding its bytes
 * and growing the process by a worker.
 */
export const workerParsePool = new ParsePool();

/**
 * Parses in a worker thread with a heap limit and a deadline, in a slot of `workerParsePool`: a file that
 * takes too long or too much memory fails with a clear error, and the server stays responsive. `release`
 * is called once the worker has exited (or could not start).
 */
export function parseInWorker(
  fileName: string,
  bytes: Uint8Array,
  stem: string,
  limits: DocLimits,
  release: () => void,
): Promise<ParsedContent> {
  let worker: Worker;
  try {
    worker = new Worker(new URL('./parse-worker.js', import.meta.url), {
      workerData: { fileName, bytes, stem, budget: { maxUnpackedBytes: limits.maxUnpackedBytes } },
      resourceLimits: { maxOldGenerationSizeMb: limits.parseMemoryMb },
      // A library printing to stdout must not reach the MCP stream: read and dropped.
      stdout: true,
    });
  } catch (e) {
    release();
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  worker.once('exit', release);
  return run(worker, limits);
}

function run(worker: Worker, limits: DocLimits): Promise<ParsedContent> {
  worker.stdout.resume();
  return new Promise<ParsedContent>((resolve, reject) => {
    const timer = setTimeout(() => {
      // terminate() resolves with the exit code and does not reject; the timeout answer must not wait for it.
      void worker.terminate();
      reject(new ParseError(`parsing took longer than ${limits.parseTimeoutMs} ms; stopped (raise --parse-timeout-ms)`));
    }, limits.parseTimeoutMs);
    const done = () => clearTimeout(timer);
    worker.once('message', (r: Reply) => {
      done();
      // Likewise: the worker's one answer is in; stopping it need not delay the result.
      void worker.terminate();
      if (r.ok) resolve(r.content);
      else reject(new ParseError(r.message));
    });
    worker.once('error', (e: Error) => {
      done();
      const oom = (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(new ParseError(oom ? `parsing needed more than ${limits.parseMemoryMb} MB; stopped` : e.message));
    });
    worker.once('exit', (code) => {
      done();
      reject(new ParseError(`the parse worker exited (code ${code})`));
    });
  });
}

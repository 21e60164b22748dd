import { parentPort, workerData } from 'node:worker_threads';
import { formatFor } from './parsers/index.js';
import type { ParseBudget } from './parsers/types.js';

/** Parses one file off the main thread, so a slow or huge parse cannot stall or bloat the server. */
interface Job {
  fileName: string;
  bytes: Uint8Array;
  stem: string;
  budget: ParseBudget;
}

const job = workerData as Job;
const fmt = formatFor(job.fileName);
if (!fmt) {
  parentPort?.postMessage({ ok: false, message: `no parser for ${job.fileName}` });
} else {
  fmt.parse(job.bytes, job.stem, job.budget).then(
    (content) => parentPort?.postMessage({ ok: true, content }),
    (e: unknown) => parentPort?.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) }),
  );
}

import { parentPort, workerData } from 'node:worker_threads';
import type { AuditWorkerData, FromAuditWorker, ToAuditWorker } from './audit-worker-messages.js';
import { AuditWriter } from './audit-writer.js';

/**
 * The audit log's writer on a thread of its own (audit-log.ts starts it): digests, chaining and appends
 * run here, so a busy core's main thread only queues records and hands them over in batches.
 */
const port = parentPort;
if (!port) throw new Error('audit-worker.ts runs as a worker thread (audit-log.ts starts it)');
const post = (m: FromAuditWorker) => port.postMessage(m);

// Records come in batches already: each is written as soon as it arrives.
const writer = new AuditWriter({
  ...(workerData as AuditWorkerData),
  flushMs: 0,
  warn: (message, fields) => post({ type: 'warn', message, fields }),
});
let watched = false;
writer.onWritten((entries) => {
  const calls = entries.reduce((n, e) => n + (e.kind === 'call' ? 1 : 0), 0);
  post(watched ? { type: 'written', calls, entries: [...entries] } : { type: 'written', calls });
});

port.on('message', (m: ToAuditWorker) => {
  switch (m.type) {
    case 'records':
      for (const r of m.records) writer.record(r);
      return;
    case 'watch':
      watched = m.on;
      if (watched) post({ type: 'recent', entries: [...writer.recent()] });
      return;
    case 'close':
      // close() does not reject: the writer reports its failures through warn and records them as gaps.
      void writer.close().then(() => {
        post({ type: 'closed' });
        port.close();
      });
      return;
  }
});

// Preloaded into a core under test (NODE_OPTIONS="--expose-gc --import=<this file>", with MCPD_HEAP_PROBE
// naming a file): on SIGUSR2 the process collects garbage fully and writes its V8 heap statistics to that
// file, renamed into place so the test never reads half a file. The core itself does not handle SIGUSR2.
import { renameSync, writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

const out = process.env.MCPD_HEAP_PROBE;
if (out && typeof globalThis.gc === 'function') {
  const gc = globalThis.gc;
  process.on('SIGUSR2', () => {
    // Twice: the first pass can leave objects only weakly reachable from finalizers for the second.
    gc();
    gc();
    writeFileSync(`${out}.tmp`, JSON.stringify(getHeapStatistics()));
    renameSync(`${out}.tmp`, out);
  });
}

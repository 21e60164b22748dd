import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Each file's own socket, HOME, XDG and temp directories: no test sees another process's mcpd files.
    setupFiles: ['test/support/isolated-env.ts'],
    include: ['internal/**/*.test.ts', 'cmd/**/*.test.ts', 'test/**/*.test.ts'],
    // Real-process tests spawn servers; two cores cannot take many files at once without timeouts.
    fileParallelism: true,
    maxWorkers: 2,
    // Each of the two workers runs its share of the files one after another in one process: a fresh process
    // per file cost 80 s of module imports a run (15 s so). Every file still gets its own environment
    // (isolated-env.ts) and cleans up what it starts; decision 85 says what a file must not leave behind.
    isolate: false,
    // The longest files first, also on a clean clone with no duration cache (test/support/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // On with --coverage (scripts/run-tests.mjs, i.e. `make test`). Real-process tests run dist/ in child
    // processes, which v8 coverage does not see: the numbers are those of the in-process unit tests.
    coverage: {
      provider: 'v8',
      include: ['internal/**/*.ts'],
      exclude: ['**/*.test.ts', 'internal/contract/gen/**'],
      reporter: ['text-summary'],
      thresholds: { 'internal/core/domain/**/*.ts': { lines: 90 } },
    },
  },
});

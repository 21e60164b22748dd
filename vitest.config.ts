import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['internal/**/*.test.ts', 'cmd/**/*.test.ts', 'test/**/*.test.ts'],
    // Real-process tests spawn servers; two cores cannot take many files at once without timeouts.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

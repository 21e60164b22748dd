import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (from a full run's .tmp/test-durations.json, written by
 * scripts/run-tests.mjs; refresh when a file moves far). They start before everything else so the two workers end together.
 */
export const SLOW_FIRST = [
  'test/e2e/conformance-client.test.ts',
  'test/e2e/churn.test.ts',
  'test/e2e/logs.test.ts',
  'test/e2e/dashboard.test.ts',
  'test/e2e/slow-readers.test.ts',
  'test/e2e/socket-trust.test.ts',
];

/**
 * Vitest orders files by the durations it cached on this machine, and with no cache (CI's clean clone)
 * by file size. That put the small conformance-client file, a third of all test time, near the end of
 * the run, where it ran alone for minutes while the other worker idled. This sequencer keeps vitest's
 * order but starts SLOW_FIRST first.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.indexOf(relative(this.ctx.config.root, f.moduleId));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    const out = sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
    return out;
  }
}

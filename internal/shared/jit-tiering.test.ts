import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The compiled module (the suite's global set-up builds dist/).
const BUILT = new URL('../../dist/internal/shared/jit-tiering.js', import.meta.url).href;
/** TurboFan's bit in %GetOptimizationStatus (V8 11, Node 20). */
const TURBOFANNED = 64;

/** The call at which V8 had optimized a small function run once per "call", in a fresh process. */
function optimizedAfter(sooner: boolean): number {
  const r = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      // Optimized on the main thread: the status is read right after the call that triggered it.
      '--no-concurrent-recompilation',
      '--input-type=module',
      '-e',
      `import { tierUpSooner } from ${JSON.stringify(BUILT)};
       if (${sooner}) tierUpSooner();
       function perCall(o) { return o.a + o.b; }
       let at = -1;
       for (let i = 0; i < 20000 && at < 0; i++) { perCall({ a: i, b: 2 }); if (%GetOptimizationStatus(perCall) & ${TURBOFANNED}) at = i; }
       console.log(at);`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return Number(r.stdout.trim());
}

describe('tierUpSooner', () => {
  it('has V8 optimize a function run once per call after a quarter of the calls', () => {
    const byDefault = optimizedAfter(false);
    const sooner = optimizedAfter(true);
    expect(byDefault).toBeGreaterThan(0);
    expect(sooner).toBeGreaterThan(0);
    expect(sooner).toBeLessThan(byDefault / 3);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { profile, server } from '../support/profiles.js';

// The core's liveness probe (after a missed deadline, and every pingIntervalSeconds) must ask each era
// something it answers: a 2026-07-28 server has no `ping`, and was recycled as hung at every interval.

const count = (world: TestWorld, pattern: RegExp) =>
  world.coreLog
    .join('')
    .split('\n')
    .filter((l) => pattern.test(l)).length;

describe('liveness of a 2026-07-28 server', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        server('modern', [process.execPath, `${FIXTURES}/servers/era2026.mjs`], { idleSeconds: 300, maxInstances: 1, minReady: 1 }),
      ),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\npingIntervalSeconds: 1\nlogLevel: debug\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('answers the periodic probe and keeps its instance', { timeout: 90_000 }, async () => {
    await waitFor(
      'three answered liveness probes of modern',
      () => {
        const hung = world.coreLog
          .join('')
          .split('\n')
          .find((l) => l.includes('instance.hung'));
        if (hung) throw new Error(`the probe took a live 2026 server for hung: ${hung}`);
        return count(world, /instance\.alive.*server modern/) >= 3;
      },
      60_000,
    );
    // minReady started it once; a recycled instance would have been started again.
    expect(count(world, /starting server modern/)).toBe(1);
  });
});

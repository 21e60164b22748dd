import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { McpdError } from '../../internal/shared/errors.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { echoServer, profile, server } from '../support/profiles.js';

const NOT_FOUND_STILL_LISTING = /^NOT_FOUND: no tool named "nosuch__x".*servers still being listed[^:]*: (.*, )?late$/;

/**
 * A profile holding a server that never finishes starting (late-init.mjs, never released): a call to a name
 * that is in no listing is answered NOT_FOUND within the request's deadline, or the listing budget when the
 * request sets none — not when the stalled server's start finally times out (the probe saw 75 s).
 */
describe('a call to a name not in the listing honours its deadline', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.cleanup();
    world = undefined;
  });

  async function stalledWorld(budgetSeconds: number): Promise<TestWorld> {
    const w = new TestWorld({});
    // Its start may take as long as a call may (a first call waits for the start): longer than any test here.
    const stall = { idleSeconds: 300, callTimeoutSeconds: 600 };
    const late = server('late', [process.execPath, join(FIXTURES, 'servers/late-init.mjs')], stall, {
      LATE_INIT_RELEASE: join(w.dir, 'never-released'),
    });
    w.write('profiles/default.yaml', profile(echoServer('healthy', { idleSeconds: 300 }), late));
    w.write('callers.yaml', 'callers: {}\n');
    w.write('runtime.yaml', `metricsAddress: ""\nlistingBudgetSeconds: ${budgetSeconds}\n`);
    await w.startCore();
    return w;
  }

  async function callUnknown(w: TestWorld, timeoutMs: number): Promise<string> {
    const grpc = createControlClient(w.socket);
    try {
      const stream = grpc.callTool({ caller: 'alice', name: 'nosuch__x', argumentsJson: Buffer.from('{}'), routingKey: '', timeoutMs });
      return await collectStream(stream, () => {}).then(
        () => 'answered',
        (e: Error) => `${e instanceof McpdError ? e.reason : 'not an McpdError'}: ${e.message}`,
      );
    } finally {
      grpc.close();
    }
  }

  /** The stalled server is still starting: whatever ended the call, it was not that server's start. */
  async function stillStalled(w: TestWorld): Promise<void> {
    const late = (await w.calls().status()).pools.find((p) => p.references.includes('default/late'));
    expect(late?.instances.some((i) => i.state === 'ready')).toBe(false);
  }

  it('the request deadline bounds the lookup (a listing budget of 10 minutes never ends it)', { timeout: 120_000 }, async () => {
    world = await stalledWorld(600);
    const started = Date.now();
    expect(await callUnknown(world, 5000)).toMatch(NOT_FOUND_STILL_LISTING);
    // Near the 5 s deadline, far from the 600 s budget (generous for a loaded machine; a stock client gives up at 60 s).
    expect(Date.now() - started).toBeLessThan(60_000);
    await stillStalled(world);
  });

  it('without a deadline, the listing budget bounds the lookup', { timeout: 120_000 }, async () => {
    world = await stalledWorld(2);
    const started = Date.now();
    expect(await callUnknown(world, 0)).toMatch(NOT_FOUND_STILL_LISTING);
    // Near the 2 s budget, far from the stalled start's 600 s.
    expect(Date.now() - started).toBeLessThan(60_000);
    await stillStalled(world);
  });
});

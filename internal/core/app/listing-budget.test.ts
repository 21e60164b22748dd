import { describe, expect, it } from 'vitest';
import { ListingBudget } from './listing-budget.js';

/** A promise the test settles. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** `wait` has not returned by the next turn of the event loop, and returns once `settle` ran. */
async function returnsOnlyAfter(wait: Promise<void>, settle: () => void): Promise<void> {
  let returned = false;
  void wait.then(() => (returned = true)); // observed below; a wait never rejects
  await new Promise((r) => setImmediate(r));
  expect(returned).toBe(false);
  settle();
  await wait;
}

describe('ListingBudget', () => {
  it('a server whose loading overran the budget is not waited for again; a slower one still is', { timeout: 30_000 }, async () => {
    // The first wait has a budget that runs out at once; every later one a budget no test outlives.
    let first = true;
    const budget = new ListingBudget(() => (first ? ((first = false), 1) : 600_000));
    const late = deferred();
    const healthy = deferred();
    healthy.resolve();
    await budget.wait(
      new Map([
        ['late', late.promise],
        ['healthy', healthy.promise],
      ]),
    );

    // Within the long budget this wait returns when `slow` settles: `late` is overdue and skipped.
    const slow = deferred();
    const waiting = budget.wait(
      new Map([
        ['late', late.promise],
        ['slow', slow.promise],
      ]),
    );
    await returnsOnlyAfter(waiting, slow.resolve);

    // Once the late loading settled, a new loading of that server is waited for again.
    late.resolve();
    await late.promise;
    const again = deferred();
    const third = budget.wait(new Map([['late', again.promise]]));
    await returnsOnlyAfter(third, again.resolve);
  });
});

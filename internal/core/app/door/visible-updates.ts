import type { Subscription } from '../../../contract/control/control-areas.js';

/**
 * A subscription whose updates reach the caller only while `visible()` says the target is still theirs to
 * see: a policy rule added after the subscribe hides the resource from lists, and its updates with it. The
 * subscription itself stays (it ends as before, by its signal), so updates resume if the rule goes.
 */
export function whileVisible<T>(sub: Subscription<T>, visible: () => boolean): Subscription<T> {
  const filtered: Subscription<T> = {
    async next() {
      for (;;) {
        const r = await sub.next();
        if (r.done || visible()) return r;
      }
    },
    return: (value?: unknown) => sub.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => filtered,
  };
  return filtered;
}

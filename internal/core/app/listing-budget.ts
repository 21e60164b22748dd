import type { ServerFailure } from '../../contract/control/control.js';
import { cappedTimeout } from '../../shared/timer-limit.js';

/**
 * How long listings wait for servers still starting (runtime.yaml listingBudgetSeconds). Past it a
 * listing answers with what is ready; the loading goes on and what it brings joins the index later
 * (list_changed). A server whose loading overran the budget is late: while that loading goes on, the
 * other listings (the tools page's context channels, resources, prompts, other callers) take what is
 * ready at once instead of waiting the whole budget again for it — and still wait for the servers that
 * are merely slower to list.
 */
export class ListingBudget {
  /** Per spec fingerprint: the loading that overran the budget, until it settles. */
  private readonly overdue = new Map<string, Promise<unknown>>();

  constructor(private readonly budgetMs: () => number) {}

  get ms(): number {
    return this.budgetMs();
  }

  /**
   * Waits for each server's loading (by spec fingerprint; loadings never reject: failures are recorded
   * by the caches) at most the budget, late servers not at all. Callers tell what is still loading from
   * their own state afterwards.
   */
  async wait(loads: ReadonlyMap<string, Promise<unknown>>): Promise<void> {
    const waited = [...loads].filter(([fp]) => !this.overdue.has(fp));
    if (waited.length === 0) return;
    const settled = new Set<string>();
    for (const [fp, p] of waited) {
      const done = () => settled.add(fp);
      p.then(done, done);
    }
    if (await settlesWithin(Promise.all(waited.map(([, p]) => p)), this.budgetMs())) return;
    for (const [fp, p] of waited) {
      if (settled.has(fp)) continue;
      this.overdue.set(fp, p);
      const clear = () => {
        if (this.overdue.get(fp) === p) this.overdue.delete(fp);
      };
      p.then(clear, clear);
    }
  }
}

async function settlesWithin(loading: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = cappedTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([loading.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Servers a first listing answered without (still starting past runtime.yaml listingBudgetSeconds),
 * as the failures a listing reports: clients and `mcpdctl tools` warn about them like any server left
 * out, and learn of their tools by list_changed once they arrive.
 */
export function pendingFailures(servers: readonly string[], budgetMs: number): ServerFailure[] {
  return servers.map((server) => ({
    server,
    error: `not ready yet: still starting after ${budgetMs / 1000} s (runtime.yaml listingBudgetSeconds); its tools follow with notifications/tools/list_changed once it answers`,
  }));
}

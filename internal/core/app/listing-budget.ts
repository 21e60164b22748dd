import type { ServerFailure } from '../../contract/control/control.js';
import { cappedTimeout } from '../../shared/timer-limit.js';

/**
 * How long listings wait for servers still starting (runtime.yaml listingBudgetSeconds). Past it a
 * listing answers with what is ready; the loading goes on and what it brings joins the index later
 * (list_changed). While a profile has a loading that overran the budget, its other listings (the tools
 * page's context channels, resources, prompts) take what is ready at once instead of waiting the whole
 * budget again for the same late server.
 */
export class ListingBudget {
  private readonly overdue = new Map<string, Promise<unknown>>();

  constructor(private readonly budgetMs: () => number) {}

  get ms(): number {
    return this.budgetMs();
  }

  /** True when `loading` settled within the budget (it never rejects: failures are recorded by the caches). */
  async wait(profile: string, loading: Promise<unknown>): Promise<boolean> {
    const late = this.overdue.has(profile);
    const inTime = await settlesWithin(loading, late ? 0 : this.budgetMs());
    if (!inTime && !late) {
      this.overdue.set(profile, loading);
      const clear = () => {
        if (this.overdue.get(profile) === loading) this.overdue.delete(profile);
      };
      loading.then(clear, clear);
    }
    return inTime;
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

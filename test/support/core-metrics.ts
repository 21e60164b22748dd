import type { TestWorld } from './core-process.js';

/** The core's bound metrics URL, from its "core started" log line (runtime.yaml port 0 picks a free port). */
export function metricsUrl(world: TestWorld): string | undefined {
  for (const line of world.coreLog.join('').split('\n')) {
    if (!line.includes('"core started"')) continue;
    const m = (JSON.parse(line) as { metrics?: string }).metrics;
    if (m) return m;
  }
  return undefined;
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorld } from './core-process.js';
import { FIXTURES } from './paths.js';
import { profile, server } from './profiles.js';

export interface LateWorld {
  world: TestWorld;
  /** Lets the late server finish starting. */
  release: () => void;
}

/**
 * A running core whose default profile holds `healthy`, the server `late` — late-init.mjs, which does
 * not answer `initialize` until release(), then serves as the fixture `lateServer` — and `others`. Its
 * listing budget is long enough for the healthy server to start on a loaded machine; the late one never
 * starts within it.
 */
export async function startLateWorld(healthy: string, o: { lateServer?: string; others?: string[] } = {}): Promise<LateWorld> {
  const world = new TestWorld({});
  const releaseFile = join(world.dir, 'release-late');
  const env: Record<string, string> = { LATE_INIT_RELEASE: releaseFile };
  if (o.lateServer) env.LATE_INIT_SERVER = o.lateServer;
  const late = server('late', [process.execPath, join(FIXTURES, 'servers/late-init.mjs')], { idleSeconds: 300 }, env);
  world.write('profiles/default.yaml', profile(healthy, late, ...(o.others ?? [])));
  world.write('callers.yaml', 'callers: {}\n');
  world.write('runtime.yaml', 'metricsAddress: ""\nlistingBudgetSeconds: 15\n');
  await world.startCore();
  return { world, release: () => writeFileSync(releaseFile, '') };
}

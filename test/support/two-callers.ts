import { TestWorld } from './core-process.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from './http-gateway.js';
import { profile } from './profiles.js';

/** A core with one server, and an `mcpdmcp --http` gateway for each of two callers (alice, bob). */
export interface TwoCallers {
  world: TestWorld;
  alice: HttpGatewayProc;
  bob: HttpGatewayProc;
}

/** Starts the world around `serverYaml` (a ServerSpec block of profiles.ts), unnamespaced. */
export async function twoCallers(serverYaml: string): Promise<TwoCallers> {
  const world = new TestWorld({
    'profiles/default.yaml': `namespace: { mode: never }\n${profile(serverYaml)}`,
    'callers.yaml': 'callers: {}\n',
  });
  await world.startCore();
  const [alice, bob] = await Promise.all([startWorldHttpGateway(world, 'alice'), startWorldHttpGateway(world, 'bob')]);
  return { world, alice, bob };
}

/** Stops what twoCallers started (what of it started, when it failed midway). */
export async function stopTwoCallers(w: Partial<TwoCallers> | undefined): Promise<void> {
  for (const gw of [w?.alice, w?.bob]) if (gw) await stopProc(gw.proc);
  await w?.world?.cleanup();
}

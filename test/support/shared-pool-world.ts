import { TestWorld } from './core-process.js';
import { profile } from './profiles.js';

/**
 * A started core where alice (profile pa) and bob (profile pb) use the same server spec, so both reach one
 * pool: the setting of the tests that keep server→client requests with their caller.
 */
export async function sharedPoolWorld(sharedServer: string): Promise<TestWorld> {
  const world = new TestWorld({
    'profiles/pa.yaml': profile(sharedServer),
    'profiles/pb.yaml': profile(sharedServer),
    'profiles/default.yaml': 'servers: []\n',
    'callers.yaml': 'callers:\n  alice: pa\n  bob: pb\n',
  });
  await world.startCore();
  return world;
}

import { afterAll, beforeAll } from 'vitest';
import { TestWorld } from './core-process.js';

/**
 * A TestWorld with a running core for the enclosing describe block: made and started before its first
 * test, cleaned up (every process checked gone) after its last. The world is made in the hook, not
 * here, so a block that is skipped or filtered out leaves no temp store behind; the returned handle
 * forwards to it and throws if a test body reaches it before the hook ran.
 */
export function coreWorld(files: Record<string, string>, env: Record<string, string> = {}): TestWorld {
  let world: TestWorld | undefined;
  beforeAll(async () => {
    world = new TestWorld(files);
    await world.startCore(env);
  });
  afterAll(async () => world?.cleanup());
  return new Proxy({} as TestWorld, {
    get(_target, key) {
      if (!world) throw new Error(`coreWorld: "${String(key)}" read before the block's beforeAll made the world`);
      const v: unknown = Reflect.get(world, key, world);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(world) : v;
    },
  });
}

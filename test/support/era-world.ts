import { TestWorld } from './core-process.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from './http-gateway.js';
import { FIXTURES } from './paths.js';
import { profile, server } from './profiles.js';

/** A core serving both era fixtures, and an `mcpdmcp --http` in front of it. */
export interface EraWorld {
  world: TestWorld;
  gw: HttpGatewayProc;
}

/**
 * A core with the two era fixtures — `old` (era2025.mjs, 2025-11-25) and `new` (era2026.mjs, 2026-07-28) —
 * one instance each, one call at a time: counts a fixture keeps (cancellations, toggles) live in that
 * instance, and a 2025 server's request does not say which call it serves (decision 20). Then an
 * `mcpdmcp --http` for `caller`.
 */
export async function startEraWorld(caller: string): Promise<EraWorld> {
  const opts = { maxInstances: 1, maxConcurrent: 1, idleSeconds: 300 };
  const world = new TestWorld({
    'profiles/default.yaml': profile(
      server('old', [process.execPath, `${FIXTURES}/servers/era2025.mjs`], opts),
      server('new', [process.execPath, `${FIXTURES}/servers/era2026.mjs`], opts),
    ),
    'callers.yaml': 'callers: {}\n',
  });
  try {
    await world.startCore();
    return { world, gw: await startWorldHttpGateway(world, caller) };
  } catch (e) {
    await world.cleanup();
    throw e;
  }
}

/** Stops the gateway, then the core and everything it started. */
export async function stopEraWorld(w: EraWorld | undefined): Promise<void> {
  if (!w) return;
  await stopProc(w.gw.proc);
  await w.world.cleanup();
}

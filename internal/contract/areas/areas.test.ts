import { describe, expect, it } from 'vitest';
import { AREAS } from './all-areas.js';
import { isAbsent, type AreaMethod } from './area.js';

const methods: AreaMethod[] = AREAS.flatMap((a) => a.methods);

// Each projection of the areas is checked where it lives: the core's gRPC and Session projections in
// internal/core/infra/rpc/area-projections.test.ts, the gateway's in internal/gateway/gateway-methods.test.ts.
describe('control-plane areas', () => {
  it('declare every method on each projection, or say why it has none there', () => {
    const names = methods.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of methods) {
      for (const p of [m.session, m.grpc, m.gateway]) if (isAbsent(p)) expect(p.absent.length, m.name).toBeGreaterThan(10);
      // A method served nowhere would be dead; one with a core call must reach it somewhere.
      expect([m.session, m.grpc, m.gateway].every(isAbsent), m.name).toBe(false);
      // The gateway forwards to the Session method of the same name.
      if (!isAbsent(m.gateway)) expect(isAbsent(m.session), `${m.name}: the gateway forwards to the Session`).toBe(false);
    }
    expect(AREAS.map((a) => a.name)).toEqual(['tools', 'resources', 'prompts', 'logs', 'context', 'tasks', 'servers']);
  });
});

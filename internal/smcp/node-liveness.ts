/** A Redis-backed node's heartbeat, the sweep of dead nodes, and re-claiming seats Redis forgot. */
import { NOTIFY_EVENTS } from '../contract/smcp/events.js';
import type { SmcpContext } from './context.js';
import { leave } from './office-handlers.js';
import type { RedisRegistry } from './redis-registry.js';
import type { Member } from './registry.js';
import { memberOf, officeRoom, sessionOf } from './session.js';

/** Heartbeat every ttl/3; sweep dead nodes every ttl/2, telling their offices who left. */
export function startHeartbeat(ctx: SmcpContext, registry: RedisRegistry, ttlMs: number): { first: Promise<void>; stop: () => void } {
  let failing = false;
  const beat = setInterval(() => {
    registry
      .heartbeat()
      .then(async (known) => {
        if (failing) ctx.log('redis heartbeat works again');
        failing = false;
        if (!known) await reclaim(ctx);
      })
      .catch((e: unknown) => {
        if (!failing) ctx.log(`redis heartbeat: ${(e as Error).message}`);
        failing = true;
      });
  }, ttlMs / 3);
  const sweep = setInterval(() => {
    registry
      .sweep()
      .then((gone) => {
        for (const m of gone) {
          ctx.log(`${m.role} "${m.name}" of dead node ${m.node} left office "${m.office_id}"`);
          // leaveSwept() logs its own failure; the sweep frees the seats side by side.
          void leaveSwept(ctx, m);
        }
      })
      .catch((e: unknown) => ctx.log(`redis sweep: ${(e as Error).message}`));
  }, ttlMs / 2);
  beat.unref();
  sweep.unref();
  return {
    first: registry.heartbeat().then(() => undefined),
    stop: () => {
      clearInterval(beat);
      clearInterval(sweep);
    },
  };
}

/**
 * Redis lost this node (outage past the TTL, or restarted empty): claim every local member's seat again.
 * A seat someone else took meanwhile stays theirs; our member is out of the office and told so by 4103 on
 * its next request.
 */
async function reclaim(ctx: SmcpContext): Promise<void> {
  for (const socket of ctx.nsp.sockets.values()) {
    const m = memberOf(socket, ctx.node);
    if (!m) continue;
    // Ignored: Redis still away: the next beat tries again.
    const r = await ctx.registry.claim(m).catch(() => undefined);
    if (r?.ok) {
      // The office may have heard it leave (swept by another node): announce it again.
      socket.to(officeRoom(m.office_id)).emit(NOTIFY_EVENTS.enterOffice, { office_id: m.office_id, [m.role]: m.name });
      continue;
    }
    ctx.log(`${m.role} "${m.name}" lost its seat in office "${m.office_id}" while Redis was away`);
    await socket.leave(officeRoom(m.office_id));
    sessionOf(socket).office = undefined;
  }
}

/**
 * A swept member's seat is already free; its office still hears notify:leave_office. A failure (Redis
 * gone) is logged; the next sweep tries again.
 */
async function leaveSwept(ctx: SmcpContext, m: Member): Promise<void> {
  await leave(ctx, undefined, m).catch((e: unknown) => ctx.log(`leave of swept ${m.role} "${m.name}": ${(e as Error).message}`));
}

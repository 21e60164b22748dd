import { randomUUID } from 'node:crypto';
import type { CallerMeta, CallerSession } from '../../contract/control/control.js';

interface Entry extends CallerSession {
  meta: CallerMeta;
  since: number;
}

/**
 * Who is attached. A Session stream's end unregisters its caller; callers registered by unary RPC
 * with a pid are reaped when that process is gone.
 */
export class CallerRegistry {
  private readonly sessions = new Map<string, Entry>();

  register(caller: string, profile: string, meta: CallerMeta): CallerSession {
    const s: Entry = { id: randomUUID(), caller, profile, meta, since: Date.now() };
    this.sessions.set(s.id, s);
    return { id: s.id, caller, profile, clientName: meta.clientName };
  }

  /** Removes a session; returns its caller's name, or undefined when there was none. */
  unregister(id: string): string | undefined {
    const s = this.sessions.get(id);
    this.sessions.delete(id);
    return s?.caller;
  }

  /** After a reload moved callers between profiles. */
  remap(profileOf: (caller: string) => string): void {
    for (const s of this.sessions.values()) s.profile = profileOf(s.caller);
  }

  /** Drops sessions whose gateway process no longer exists. Returns how many. */
  reapDead(isAlive: (pid: number) => boolean): number {
    let n = 0;
    for (const [id, s] of this.sessions) {
      if (s.meta.pid !== undefined && !isAlive(s.meta.pid)) {
        this.sessions.delete(id);
        n++;
      }
    }
    return n;
  }

  /** The gateway processes attached (those that said their pid). */
  pids(): number[] {
    return [...new Set([...this.sessions.values()].flatMap((s) => (s.meta.pid ? [s.meta.pid] : [])))].sort((a, b) => a - b);
  }

  summary(): { caller: string; profile: string; sessions: number }[] {
    const by = new Map<string, { caller: string; profile: string; sessions: number }>();
    for (const s of this.sessions.values()) {
      const row = by.get(s.caller) ?? { caller: s.caller, profile: s.profile, sessions: 0 };
      row.sessions++;
      by.set(s.caller, row);
    }
    return [...by.values()].sort((a, b) => a.caller.localeCompare(b.caller));
  }

  get size(): number {
    return this.sessions.size;
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import type { ServerSpec } from '../../../contract/model/spec.js';
import type { LogEntry, PoolDeps } from './types.js';
import type { Instance } from './instance.js';

/**
 * What every part of one pool shares: its identity and spec, the injected dependencies (clock, log,
 * events), and its phase — open, suspended or closed. The phase changes only through the methods
 * here, each of which starts a new generation so a start begun before it is never served from.
 */
export class PoolScope {
  private isClosed = false;
  private suspension?: string;
  private gen = 0;
  /**
   * An instance of this spec asked its client (sampling, elicitation, roots): a stdio server's request does
   * not say which call it serves, so from then on each call gets an instance of its own (decision 20).
   * Kept in the metadata cache, so a restarted core knows before the server asks again.
   */
  asksClient = false;

  constructor(
    readonly fingerprint: string,
    /** Replaced by a reload that keeps the fingerprint (only non-fingerprinted fields such as the name differ). */
    public spec: ServerSpec,
    readonly deps: PoolDeps,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  get suspendedReason(): string | undefined {
    return this.suspension;
  }

  /** Bumped by every suspension and by close: a start launched under an older generation is discarded. */
  get generation(): number {
    return this.gen;
  }

  /** Neither closed nor suspended: it may start instances and serve calls. */
  get open(): boolean {
    return !this.isClosed && this.suspension === undefined;
  }

  /** False when it was suspended already. */
  suspend(reason: string): boolean {
    if (this.suspension !== undefined) return false;
    this.suspension = reason;
    this.gen++;
    return true;
  }

  /** False when it was not suspended. */
  resume(): boolean {
    if (this.suspension === undefined) return false;
    this.suspension = undefined;
    return true;
  }

  close(): void {
    this.isClosed = true;
    this.gen++;
  }

  get cap(): number {
    return this.spec.strategy === 'singleton' ? 1 : Math.max(1, this.spec.maxInstances);
  }

  /** Calls one instance may serve at a time: one for a server that asks its client, else `maxConcurrent`. */
  get perInstance(): number {
    return this.asksClient ? 1 : Math.max(1, this.spec.maxConcurrent);
  }

  /** Instances kept warm: minReady, at least one for always-on. */
  get warmTarget(): number {
    const floor = this.spec.activationMode === 'always-on' ? 1 : 0;
    return Math.min(this.cap, Math.max(this.spec.minReady, floor));
  }

  now(): number {
    return this.deps.clock.now();
  }

  log(level: LogEntry['level'], event: string, message: string, inst?: Instance, fields?: Record<string, unknown>): void {
    this.deps.log({ level, event, fingerprint: this.fingerprint, instance: inst?.id, message, fields });
  }

  /** Status watchers should look again (coalesced by the manager). */
  changed(): void {
    this.deps.events.statusChanged();
  }
}

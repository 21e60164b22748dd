import type { JsonObject } from '../../../shared/json.js';
import type { PoolEvents } from './types.js';

export type NotificationListener = (fingerprint: string, instanceId: string, method: string, params: JsonObject) => void;
export type StderrListener = (fingerprint: string, instanceId: string, line: string) => void;

export interface EventHubHooks {
  /** A pool's tools (or other metadata) changed: keep them for the next core (before listeners hear of it). */
  toolsChanged(fingerprint: string): void;
  /** The runtime is shutting down: pin losses are not reported (nothing is re-established). */
  down(): boolean;
}

/**
 * What every pool reports upward, fanned out to the manager's listeners: a listener's failure never
 * breaks scheduling, and status changes are coalesced to one callback per burst.
 */
export class PoolEventHub {
  private readonly notifyListeners = new Set<NotificationListener>();
  private readonly stderrListeners = new Set<StderrListener>();
  private readonly toolsListeners = new Set<(fingerprint: string) => void>();
  private readonly verifyListeners = new Set<(fingerprint: string) => void>();
  private readonly pinListeners = new Set<(fingerprint: string, key: string) => void>();
  private readonly statusListeners = new Set<() => void>();
  private readonly abandonListeners = new Set<(fingerprint: string, instanceId: string, key: string) => void>();
  private statusQueued = false;

  constructor(private readonly hooks: EventHubHooks) {}

  /** Given to every pool. */
  readonly events: PoolEvents = {
    notification: (fp, id, method, params) => this.notifyListeners.forEach((cb) => safe(() => cb(fp, id, method, params))),
    stderr: (fp, id, line) => this.stderrListeners.forEach((cb) => safe(() => cb(fp, id, line))),
    toolsChanged: (fp) => {
      this.hooks.toolsChanged(fp);
      this.toolsListeners.forEach((cb) => safe(() => cb(fp)));
    },
    listsToVerify: (fp) => this.verifyListeners.forEach((cb) => safe(() => cb(fp))),
    // At shutdown nothing is re-established, so nobody needs to hear of it.
    pinLost: (fp, key) => {
      if (!this.hooks.down()) this.pinListeners.forEach((cb) => safe(() => cb(fp, key)));
    },
    statusChanged: () => this.statusChanged(),
    metadataChanged: (fp) => this.hooks.toolsChanged(fp),
    callAbandoned: (fp, id, key) => this.abandonListeners.forEach((cb) => safe(() => cb(fp, id, key))),
  };

  onNotification(cb: NotificationListener): () => void {
    return subscribe(this.notifyListeners, cb);
  }

  onStderr(cb: StderrListener): () => void {
    return subscribe(this.stderrListeners, cb);
  }

  onToolsChanged(cb: (fp: string) => void): () => void {
    return subscribe(this.toolsListeners, cb);
  }

  onListsToVerify(cb: (fp: string) => void): () => void {
    return subscribe(this.verifyListeners, cb);
  }

  onPinLost(cb: (fp: string, key: string) => void): () => void {
    return subscribe(this.pinListeners, cb);
  }

  onCallAbandoned(cb: (fp: string, instanceId: string, key: string) => void): () => void {
    return subscribe(this.abandonListeners, cb);
  }

  onStatusChange(cb: () => void): () => void {
    return subscribe(this.statusListeners, cb);
  }

  statusChanged(): void {
    if (this.statusQueued) return;
    this.statusQueued = true;
    queueMicrotask(() => {
      this.statusQueued = false;
      for (const cb of this.statusListeners) safe(() => cb());
    });
  }
}

function subscribe<T>(set: Set<T>, cb: T): () => void {
  set.add(cb);
  return () => set.delete(cb);
}

function safe(fn: () => void): void {
  try {
    fn();
  } catch {
    // a listener's failure must not break scheduling
  }
}

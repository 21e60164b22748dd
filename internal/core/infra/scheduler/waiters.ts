import type { StartCause } from '../../../contract/model/runtime.js';
import type { TimerHandle } from './clock.js';
import type { Instance } from './instance.js';

/** How a wait ended: given a slot, or not (the pool stayed full, the deadline passed, the caller left, the pool failed). */
export type WaitOutcome = 'served' | 'saturated' | 'timeout' | 'cancelled' | 'failed';

/** A call waiting for a slot; served FIFO, bounded by its deadline and the pool-wait limit. */
export interface Waiter {
  key?: string;
  /** A read-only call: it may take a slot lent by a call whose server is asking its caller. */
  readOnly?: boolean;
  cause: StartCause;
  enqueuedAt: number;
  deadline: number;
  waitLimit: number;
  timer?: TimerHandle;
  resolve(inst: Instance): void;
  reject(err: Error): void;
  /** Detaches the abort listener. */
  detach(): void;
}

export class WaitQueue {
  private items: Waiter[] = [];

  get length(): number {
    return this.items.length;
  }

  push(w: Waiter): void {
    this.items.push(w);
  }

  snapshot(): readonly Waiter[] {
    return [...this.items];
  }

  remove(w: Waiter): boolean {
    const i = this.items.indexOf(w);
    if (i < 0) return false;
    this.items.splice(i, 1);
    return true;
  }

  drain(): Waiter[] {
    return this.items.splice(0);
  }
}

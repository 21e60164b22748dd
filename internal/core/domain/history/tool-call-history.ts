/**
 * Recent tool calls of one caller (spec desktop-window-resources.md, `ToolCallRecord`): an internal
 * detail of the Computer used to order servers in the desktop and finder views.
 */
import type { JsonObject } from '../../../shared/json.js';
import { McpdError } from '../../../shared/errors.js';
import { serverOrder } from './server-order.js';

/** Field names follow the spec's `ToolCallRecord` TypedDict. */
export interface ToolCallRecord {
  /** ISO-8601 time the call started. */
  timestamp: string;
  req_id: string;
  /** MCP server name in the caller's profile: the key for server ordering. */
  server: string;
  tool: string;
  parameters: JsonObject;
  /** Seconds, or null when the call had no timeout. */
  timeout: number | null;
  success: boolean;
  error: string | null;
}

export const DEFAULT_HISTORY_CAPACITY = 200;

function checkCapacity(capacity: number): number {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new McpdError('INVALID_ARGUMENT', `tool-call history capacity must be a positive integer, got ${capacity}`);
  }
  return capacity;
}

/** A bounded ring of one caller's tool calls; the oldest record is dropped when full. */
export class ToolCallHistory {
  readonly capacity: number;
  private readonly ring: ToolCallRecord[] = [];
  /** Index of the oldest record once the ring is full. */
  private head = 0;

  constructor(capacity: number = DEFAULT_HISTORY_CAPACITY) {
    this.capacity = checkCapacity(capacity);
  }

  get size(): number {
    return this.ring.length;
  }

  record(r: ToolCallRecord): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(r);
      return;
    }
    this.ring[this.head] = r;
    this.head = (this.head + 1) % this.capacity;
  }

  /** Chronological, oldest first: the order the spec's organizers walk backwards. */
  records(): ToolCallRecord[] {
    return this.ring.slice(this.head).concat(this.ring.slice(0, this.head));
  }

  /** Newest first, at most `limit` (default all). */
  recent(limit?: number): ToolCallRecord[] {
    const all = this.records().reverse();
    return limit === undefined ? all : all.slice(0, Math.max(0, limit));
  }

  /** See `serverOrder` in server-order.ts. */
  serverOrder(allServers: Iterable<string>): string[] {
    return serverOrder(this.records(), allServers);
  }

  clear(): void {
    this.ring.length = 0;
    this.head = 0;
  }
}

/** One `ToolCallHistory` per caller, created on first use, all with the same capacity. */
export class CallerHistories {
  readonly capacity: number;
  private readonly byCaller = new Map<string, ToolCallHistory>();
  private readonly listeners = new Set<(caller: string, r: ToolCallRecord) => void>();

  constructor(capacity: number = DEFAULT_HISTORY_CAPACITY) {
    this.capacity = checkCapacity(capacity);
  }

  /**
   * Called after each record: a tool call may change the server order of the caller's desktop and
   * finder, which their watchers must hear about. Returns a function that removes the listener.
   */
  onRecord(cb: (caller: string, r: ToolCallRecord) => void): () => void {
    this.listeners.add(cb);
    return () => void this.listeners.delete(cb);
  }

  /** The caller's history; an empty one (not stored) when the caller has none yet. */
  get(caller: string): ToolCallHistory {
    return this.byCaller.get(caller) ?? new ToolCallHistory(this.capacity);
  }

  record(caller: string, r: ToolCallRecord): void {
    let h = this.byCaller.get(caller);
    if (!h) {
      h = new ToolCallHistory(this.capacity);
      this.byCaller.set(caller, h);
    }
    h.record(r);
    for (const cb of this.listeners) {
      try {
        cb(caller, r);
      } catch {
        // A faulty listener must not make the tool call that was just recorded look failed.
      }
    }
  }

  forget(caller: string): void {
    this.byCaller.delete(caller);
  }

  callers(): string[] {
    return [...this.byCaller.keys()];
  }
}

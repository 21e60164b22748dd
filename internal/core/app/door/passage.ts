import type { Face } from '../../../contract/control/control.js';
import type { Cancellable, Done } from '../../domain/call-adapters.js';
import type { Core } from '../core.js';
import type { CallNote, DoorCall } from './interceptor.js';
import type { JsonObject } from '../../../shared/json.js';

/** How a face names a call: the area method, its target and arguments, and who asks. */
export interface CallSpec {
  method: string;
  caller: string;
  target?: string;
  args?: unknown;
  client?: string;
  timeoutMs?: number;
}

/** What a face's view of the door (face-view.ts) uses of the door (door.ts). */
export interface Passage {
  readonly core: Core;
  readonly filtering: boolean;
  callOf(face: Face, spec: CallSpec, note?: CallNote): DoorCall;
  pass<T>(call: DoorCall, run: (done: Done<T>) => Cancellable, done: Done<T>): Cancellable;
  passAsync<T>(call: DoorCall, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  open<T>(call: DoorCall, open: () => T): T;
  visible<T>(call: DoorCall, items: readonly T[], nameOf: (item: T) => string, definitionOf?: (item: T) => JsonObject): T[];
  /** Added to list and snapshot etags: moves when what interceptors hide changes ('' while it never did). */
  visibilityTag(): string;
  /** Hears such a change (a watch then sends its snapshot again); returns how to stop hearing it. */
  onVisibilityChange(listener: () => void): () => void;
}

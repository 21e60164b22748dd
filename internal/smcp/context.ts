import type { Namespace } from 'socket.io';
import type { OfficeRegistry, Member } from './registry.js';
import type { Forwarder } from './forwarder.js';
import type { SeatCache } from './seat-cache.js';
import type { InFlightLimits } from './agent-calls.js';

/** What every handler of one mcpd-smcp node shares. */
export interface SmcpContext {
  nsp: Namespace;
  registry: OfficeRegistry;
  forwarder: Forwarder;
  /** With Redis: computer seats looked up before (see seat-cache.ts); without, the registry is in memory. */
  seats?: SeatCache;
  /** This node's id (random per process); stored with each member so dead nodes can be swept. */
  node: string;
  log: (msg: string) => void;
  limits: InFlightLimits;
  /** Called whenever a member leaves an office on this node, so calls waiting on it fail at once everywhere. */
  memberGone: (m: Member) => void;
}

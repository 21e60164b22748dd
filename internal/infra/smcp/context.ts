import type { Namespace } from 'socket.io';
import type { OfficeRegistry, Member } from './registry.js';
import type { Forwarder } from './forwarder.js';

/** What every handler of one mcpd-smcp node shares. */
export interface SmcpContext {
  nsp: Namespace;
  registry: OfficeRegistry;
  forwarder: Forwarder;
  /** This node's id (random per process); stored with each member so dead nodes can be swept. */
  node: string;
  log: (msg: string) => void;
  /** Called whenever a member leaves an office on this node, so calls waiting on it fail at once everywhere. */
  memberGone: (m: Member) => void;
}

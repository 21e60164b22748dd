import type { DesktopBackend } from '../contract/desktop-bridge/types.js';
import type { Clock } from './clock.js';
import type { ConfirmGate } from './confirm-gate.js';
import type { Execution } from './execution.js';
import type { Lane } from './lane.js';

/** What each method body gets: the request's params and the host's shared parts. */
export interface MethodEnv {
  params: Record<string, unknown>;
  exec: Execution;
  backend: DesktopBackend;
  clock: Clock;
  lane: Lane;
  gate: ConfirmGate;
}

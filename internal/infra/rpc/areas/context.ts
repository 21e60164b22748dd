import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import { unimplementedStream, unimplementedUnary } from './unimplemented.js';

type Handlers = Pick<ControlPlaneServer, 'getDesktop' | 'watchDesktop' | 'getFinder' | 'watchFinder'>;

/** gRPC handlers for the Desktop and Finder context channels. */
export function contextHandlers(_api: ControlApi): Handlers {
  return {
    getDesktop: unimplementedUnary('GetDesktop'),
    watchDesktop: unimplementedStream('WatchDesktop'),
    getFinder: unimplementedUnary('GetFinder'),
    watchFinder: unimplementedStream('WatchFinder'),
  };
}

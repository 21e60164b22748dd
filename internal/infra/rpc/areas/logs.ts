import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import { unimplementedStream } from './unimplemented.js';

type Handlers = Pick<ControlPlaneServer, 'streamLogs'>;

/** gRPC handlers for log streaming. */
export function logHandlers(_api: ControlApi): Handlers {
  return { streamLogs: unimplementedStream('StreamLogs') };
}

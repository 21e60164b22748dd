import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import { unimplementedStream, unimplementedUnary } from './unimplemented.js';

type Handlers = Pick<ControlPlaneServer, 'listResources' | 'listResourceTemplates' | 'watchResources' | 'readResource' | 'subscribeResource'>;

/** gRPC handlers for resources. */
export function resourceHandlers(_api: ControlApi): Handlers {
  return {
    listResources: unimplementedUnary('ListResources'),
    listResourceTemplates: unimplementedUnary('ListResourceTemplates'),
    watchResources: unimplementedStream('WatchResources'),
    readResource: unimplementedUnary('ReadResource'),
    subscribeResource: unimplementedStream('SubscribeResource'),
  };
}

import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import { unimplementedStream, unimplementedUnary } from './unimplemented.js';

type Handlers = Pick<ControlPlaneServer, 'listPrompts' | 'watchPrompts' | 'getPrompt' | 'complete'>;

/** gRPC handlers for prompts and completion. */
export function promptHandlers(_api: ControlApi): Handlers {
  return {
    listPrompts: unimplementedUnary('ListPrompts'),
    watchPrompts: unimplementedStream('WatchPrompts'),
    getPrompt: unimplementedUnary('GetPrompt'),
    complete: unimplementedUnary('Complete'),
  };
}

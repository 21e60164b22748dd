import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { ControlApi } from '../../../domain/control.js';
import type { PromptEntry, PromptSnapshot } from '../../../domain/control-areas.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../../gen/mcpd/control/v1/control.js';
import { collisionToPb } from '../convert.js';
import { stream, unary } from '../handler-kit.js';
import { decodeObject, encodeJson } from '../json-bytes.js';
import { unaryRequestOpts } from './resources.js';

type Handlers = Pick<ControlPlaneServer, 'listPrompts' | 'watchPrompts' | 'getPrompt' | 'complete'>;

function promptToPb(p: PromptEntry): pb.PromptDefinition {
  return { name: p.name, server: p.server, promptJson: encodeJson(p.definition) };
}

function snapshotToPb(s: PromptSnapshot): pb.PromptsSnapshot {
  return { etag: s.etag, prompts: s.prompts.map(promptToPb), collisions: s.collisions.map(collisionToPb) };
}

const optsOf = (call: unknown) => unaryRequestOpts(call as ServerUnaryCall<unknown, unknown>);

/** gRPC handlers for prompts and completion. */
export function promptHandlers(api: ControlApi): Handlers {
  return {
    listPrompts: unary(async (req: pb.ListPromptsRequest) => {
      const page = await api.prompts.list(req.caller || 'default', req.cursor || undefined, req.pageSize > 0 ? req.pageSize : undefined);
      return { etag: page.etag, prompts: page.items.map(promptToPb), nextCursor: page.nextCursor ?? '' };
    }),
    watchPrompts: stream(
      (req: pb.WatchPromptsRequest) => api.prompts.watch(req.caller || 'default', req.lastEtag || undefined),
      snapshotToPb,
    ),
    getPrompt: unary(async (req: pb.GetPromptRequest, call) => {
      const result = await api.prompts.get(
        req.caller || 'default',
        req.name,
        decodeObject(req.argumentsJson, 'arguments_json'),
        optsOf(call),
      );
      return { resultJson: encodeJson(result) };
    }),
    complete: unary(async (req: pb.CompleteRequest, call) => {
      const result = await api.prompts.complete(req.caller || 'default', decodeObject(req.paramsJson, 'params_json'), optsOf(call));
      return { resultJson: encodeJson(result) };
    }),
  };
}

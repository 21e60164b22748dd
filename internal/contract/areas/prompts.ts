import { CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Paged, PromptEntry, PromptSnapshot } from '../control/control-areas.js';
import type { JsonObject } from '../../shared/json.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { collisionToPb } from '../session/convert.js';
import { decodeObject, encodeJson } from '../session/json-bytes.js';
import { absent, method, pageSizeOf, type Area } from './area.js';
import { callerOf, cursorParams, mcpPage, objectParam, requiredString } from './params.js';

interface ListReq {
  cursor?: string;
  pageSize?: number;
}

interface GetReq {
  name: string;
  args: JsonObject;
}

const resultToPb = (result: JsonObject): { resultJson: Buffer } => ({ resultJson: encodeJson(result) });

/** Prompts (namespaced like tools) and completion: list, watch, get and complete (calls, routed by name or ref). */
export const promptsArea: Area = {
  name: 'prompts',
  methods: [
    method<ListReq, Paged<PromptEntry>>({
      name: 'prompts/list',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => api.prompts.list(ctx.caller, req.cursor, req.pageSize, ctx.client),
      session: { fromMcp: cursorParams, toMcp: (page) => mcpPage('prompts', page.items, page) },
      grpc: {
        rpc: 'listPrompts',
        fromPb: (r: pb.ListPromptsRequest) => ({
          caller: callerOf(r.caller),
          req: { cursor: r.cursor || undefined, pageSize: pageSizeOf(r.pageSize) },
        }),
        toPb: (page): pb.ListPromptsResponse => ({
          etag: page.etag,
          prompts: page.items.map(promptToPb),
          nextCursor: page.nextCursor ?? '',
          pending: [...(page.pending ?? [])],
        }),
      },
      gateway: { schema: ListPromptsRequestSchema },
    }),
    method({
      name: 'prompts/watch',
      admission: 'free',
      routed: false,
      session: absent('the core pushes notifications/prompts/list_changed on the Session when the list changes'),
      grpc: {
        rpc: 'watchPrompts',
        open: (api, r: pb.WatchPromptsRequest) => api.prompts.watch(callerOf(r.caller), r.lastEtag || undefined),
        itemToPb: (s: PromptSnapshot): pb.PromptsSnapshot => ({
          etag: s.etag,
          prompts: s.prompts.map(promptToPb),
          collisions: s.collisions.map(collisionToPb),
        }),
      },
      gateway: absent('the gateway forwards notifications/prompts/list_changed'),
    }),
    method<GetReq, JsonObject>({
      name: 'prompts/get',
      admission: 'core',
      routed: true,
      invoke: (api, req, ctx) => api.prompts.get(ctx.caller, req.name, req.args, ctx),
      session: {
        fromMcp: (params) => ({
          name: requiredString(params, 'name', 'prompts/get'),
          args: objectParam(params, 'arguments', 'prompts/get'),
        }),
      },
      grpc: {
        rpc: 'getPrompt',
        fromPb: (r: pb.GetPromptRequest) => ({
          caller: callerOf(r.caller),
          req: { name: r.name, args: decodeObject(r.argumentsJson, 'arguments_json') },
        }),
        toPb: resultToPb,
      },
      gateway: { schema: GetPromptRequestSchema },
    }),
    method<JsonObject, JsonObject>({
      name: 'completion/complete',
      admission: 'core',
      routed: true,
      invoke: (api, params, ctx) => api.prompts.complete(ctx.caller, params, ctx),
      session: { fromMcp: (params) => params },
      grpc: {
        rpc: 'complete',
        fromPb: (r: pb.CompleteRequest) => ({ caller: callerOf(r.caller), req: decodeObject(r.paramsJson, 'params_json') }),
        toPb: resultToPb,
      },
      gateway: { schema: CompleteRequestSchema },
    }),
  ],
};

function promptToPb(p: PromptEntry): pb.PromptDefinition {
  return { name: p.name, server: p.server, promptJson: encodeJson(p.definition) };
}

import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Paged, ResourceEntry, ResourceSnapshot, ResourceTemplateEntry } from '../control/control-areas.js';
import type { JsonObject } from '../../shared/json.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { collisionToPb } from '../session/convert.js';
import { encodeJson } from '../session/json-bytes.js';
import { absent, method, pageSizeOf, type Area } from './area.js';
import { callerOf, cursorParams, mcpPage, requiredString } from './params.js';
import { subscribeSession, unsubscribeSession } from './resource-session-subscriptions.js';

interface ListReq {
  cursor?: string;
  pageSize?: number;
}

const listFromPb = (r: pb.ListResourcesRequest | pb.ListResourceTemplatesRequest) => ({
  caller: callerOf(r.caller),
  req: { cursor: r.cursor || undefined, pageSize: pageSizeOf(r.pageSize) },
});

/**
 * Resources: lists (resources and templates share one snapshot and its etag), watch, read (routed by
 * URI), subscriptions (one downstream subscription per URI, however many subscribe).
 */
export const resourcesArea: Area = {
  name: 'resources',
  methods: [
    method<ListReq, Paged<ResourceEntry>>({
      name: 'resources/list',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => api.resources.list(ctx.caller, req.cursor, req.pageSize, ctx.client),
      session: {
        fromMcp: cursorParams,
        toMcp: (page) => mcpPage('resources', page.items, page),
      },
      grpc: {
        rpc: 'listResources',
        fromPb: listFromPb,
        toPb: (page): pb.ListResourcesResponse => ({
          etag: page.etag,
          resources: page.items.map(resourceToPb),
          nextCursor: page.nextCursor ?? '',
          pending: [...(page.pending ?? [])],
        }),
      },
      gateway: { schema: ListResourcesRequestSchema },
    }),
    method<ListReq, Paged<ResourceTemplateEntry>>({
      name: 'resources/templates/list',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => api.resources.listTemplates(ctx.caller, req.cursor, req.pageSize, ctx.client),
      session: {
        fromMcp: cursorParams,
        toMcp: (page) => mcpPage('resourceTemplates', page.items, page),
      },
      grpc: {
        rpc: 'listResourceTemplates',
        fromPb: listFromPb,
        toPb: (page): pb.ListResourceTemplatesResponse => ({
          etag: page.etag,
          templates: page.items.map(templateToPb),
          nextCursor: page.nextCursor ?? '',
          pending: [...(page.pending ?? [])],
        }),
      },
      gateway: { schema: ListResourceTemplatesRequestSchema },
    }),
    method({
      name: 'resources/watch',
      admission: 'free',
      routed: false,
      session: absent('the core pushes notifications/resources/list_changed on the Session when the list changes'),
      grpc: {
        rpc: 'watchResources',
        open: (api, r: pb.WatchResourcesRequest) => api.resources.watch(callerOf(r.caller), r.lastEtag || undefined),
        itemToPb: snapshotToPb,
      },
      gateway: absent('the gateway forwards notifications/resources/list_changed'),
    }),
    method<{ uri: string }, JsonObject>({
      name: 'resources/read',
      admission: 'core',
      routed: true,
      invoke: (api, req, ctx) => api.resources.read(ctx.caller, req.uri, ctx),
      session: { fromMcp: (params) => ({ uri: requiredString(params, 'uri', 'resources/read') }) },
      grpc: {
        rpc: 'readResource',
        fromPb: (r: pb.ReadResourceRequest) => ({ caller: callerOf(r.caller), req: { uri: r.uri } }),
        toPb: (result): pb.ReadResourceResponse => ({ resultJson: encodeJson(result) }),
      },
      gateway: { schema: ReadResourceRequestSchema },
    }),
    method({
      name: 'resources/subscribe',
      admission: 'free',
      routed: false,
      session: { handle: (api, params, ctx) => subscribeSession(api, requiredString(params, 'uri', 'resources/subscribe'), ctx) },
      grpc: {
        rpc: 'subscribeResource',
        open: (api, r: pb.SubscribeResourceRequest, ctx) => api.resources.subscribe(callerOf(r.caller), r.uri, ctx.signal),
        // One ResourceUpdate per downstream notifications/resources/updated of the URI.
        itemToPb: (p: JsonObject, r: pb.SubscribeResourceRequest): pb.ResourceUpdate => ({
          uri: typeof p.uri === 'string' ? p.uri : r.uri,
          paramsJson: encodeJson(p),
        }),
      },
      gateway: { schema: SubscribeRequestSchema },
    }),
    method({
      name: 'resources/unsubscribe',
      admission: 'free',
      routed: false,
      session: {
        handle: (_api, params, ctx) => Promise.resolve(unsubscribeSession(requiredString(params, 'uri', 'resources/unsubscribe'), ctx)),
      },
      grpc: absent('ending the SubscribeResource stream unsubscribes'),
      gateway: { schema: UnsubscribeRequestSchema },
    }),
  ],
};

function resourceToPb(r: ResourceEntry): pb.ResourceDefinition {
  return { uri: r.uri, server: r.server, resourceJson: encodeJson(r.definition) };
}

function templateToPb(t: ResourceTemplateEntry): pb.ResourceTemplateDefinition {
  return { uriTemplate: t.uriTemplate, server: t.server, templateJson: encodeJson(t.definition) };
}

function snapshotToPb(s: ResourceSnapshot): pb.ResourcesSnapshot {
  return {
    etag: s.etag,
    resources: s.resources.map(resourceToPb),
    templates: s.templates.map(templateToPb),
    collisions: s.collisions.map(collisionToPb),
  };
}

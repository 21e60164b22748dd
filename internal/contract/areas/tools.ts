import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerFailure, ToolPage } from '../control/control.js';
import type { JsonObject } from '../../shared/json.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { collisionToPb, snapshotToPb, toolToPb } from '../session/convert.js';
import { decodeObject } from '../session/json-bytes.js';
import { clientToolListEtag } from '../session/tool-list-watch.js';
import { encodeJson } from '../session/json-bytes.js';
import type { SessionRequestContext } from '../session/session-handler.js';
import { absent, method, pageSizeOf, type Area, type CallContext } from './area.js';
import { callerOf, cursorParams, hasProgressToken, mcpPage, objectParam, requiredString } from './params.js';

interface ListReq {
  cursor?: string;
  pageSize?: number;
}

export interface CallReq {
  name: string;
  args: JsonObject;
  /**
   * False when the MCP client sent no progress token: then no progress is asked of the server either
   * (it could not reach the client), and the server skips its progress bookkeeping — server-everything
   * answers 16 concurrent echoes ~4× slower when each carries a token.
   */
  progress?: boolean;
}

/** Tools: list (paged, with the snapshot's etag), watch, call (progress and cancellation pass through). */
export const toolsArea: Area = {
  name: 'tools',
  methods: [
    method<ListReq, ToolPage>({
      name: 'tools/list',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => api.listTools(ctx.caller, req.cursor, req.pageSize, ctx.client),
      session: {
        fromMcp: cursorParams,
        toMcp: async (page, req, ctx, api) => {
          warnListingFailures(page.failures ?? [], ctx);
          if (req.cursor) return mcpPage('tools', page.tools, { ...page, pending: undefined });
          // The first page holds the Finder's tool where the caller has documents (Core.listTools), and its
          // etag covers it: the Session's list_changed watch uses the same one (tool-list-watch.ts).
          const channels = await api.resources.channels(ctx.session.caller);
          return mcpPage('tools', page.tools, { ...page, etag: clientToolListEtag(page.etag, channels) });
        },
      },
      grpc: {
        rpc: 'listTools',
        fromPb: (r: pb.ListToolsRequest) => ({
          caller: callerOf(r.caller),
          req: { cursor: r.cursor || undefined, pageSize: pageSizeOf(r.pageSize) },
        }),
        toPb: listToolsToPb,
      },
      gateway: { schema: ListToolsRequestSchema },
    }),
    method<CallReq, JsonObject>({
      name: 'tools/call',
      // Every tool call passes the stop's gate inside the core, whichever way it came (SMCP, dashboard too).
      admission: 'core',
      routed: true,
      invoke: (api, req, ctx) => api.callTool(ctx.caller, req.name, req.args, toolCallOptions(req, ctx)),
      // The Session's own handler (rpc/session-requests.ts) enters the door with a callback: the same request and options.
      session: { fromMcp: toolCallFromMcp },
      grpc: {
        rpc: 'callTool',
        fromPb: (r: pb.CallToolRequest) => ({
          caller: callerOf(r.caller),
          req: { name: r.name, args: decodeObject(r.argumentsJson, 'arguments_json') },
          timeoutMs: r.timeoutMs > 0 ? r.timeoutMs : undefined,
          routingKey: r.routingKey || undefined,
        }),
        toPb: (result): pb.CallToolEvent => ({ resultJson: encodeJson(result) }),
        progressToPb: (p): pb.CallToolEvent => ({
          progress: { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' },
        }),
      },
      gateway: { schema: CallToolRequestSchema },
    }),
    method({
      name: 'tools/watch',
      admission: 'free',
      routed: false,
      session: absent('the core pushes notifications/tools/list_changed on the Session when the list changes'),
      grpc: {
        rpc: 'watchTools',
        open: (api, r: pb.WatchToolsRequest) => api.watchTools(callerOf(r.caller), r.lastEtag || undefined),
        itemToPb: snapshotToPb,
      },
      gateway: absent('the gateway forwards notifications/tools/list_changed'),
    }),
    method({
      name: 'ping',
      admission: 'free',
      routed: false,
      invoke: () => Promise.resolve({}),
      session: { fromMcp: () => ({}) },
      grpc: absent('gRPC has keepalive and the grpc.health.v1 Health service'),
      gateway: absent("the gateway's SDK Server answers ping itself"),
    }),
  ],
};

/** Listing responses by page key, a few dozen at most (oldest dropped first). */
const pages = new Map<string, pb.ListToolsResponse>();

/**
 * A page is fully determined by its snapshot, cursor and size: the built response is reused, and its
 * encoding memoised by the gRPC service definition (rpc/control-server.ts).
 */
function listToolsToPb(page: ToolPage, r: pb.ListToolsRequest): pb.ListToolsResponse {
  const key = `${page.etag}|${r.cursor}|${r.pageSize}|${page.tools.length}`;
  let v = pages.get(key);
  if (!v) {
    v = {
      etag: page.etag,
      tools: page.tools.map(toolToPb),
      nextCursor: page.nextCursor ?? '',
      collisions: page.collisions.map(collisionToPb),
      failures: [],
      pending: [],
    };
    pages.set(key, v);
    if (pages.size > 64) pages.delete(pages.keys().next().value as string);
  }
  // Failures come and go without the list changing: such a response is not memoised.
  return page.failures?.length ? { ...v, failures: page.failures.map((f) => ({ ...f })), pending: [...(page.pending ?? [])] } : v;
}

/** Per session: the "server: error" pairs its client was already warned about. */
const warned = new Map<string, Set<string>>();

/**
 * A server left out of the list is a failure the client's user should see, where they look: one
 * warning `notifications/message` per failing server (and distinct error) per session.
 */
function warnListingFailures(failures: readonly ServerFailure[], ctx: SessionRequestContext): void {
  if (failures.length === 0) return;
  const id = ctx.session.id;
  let seen = warned.get(id);
  if (!seen) {
    seen = new Set();
    warned.set(id, seen);
    ctx.onClose(() => warned.delete(id));
  }
  for (const f of failures) {
    const key = `${f.server}\u0000${f.error}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ctx.notify('notifications/message', {
      level: 'warning',
      logger: 'mcpd',
      data: {
        event: 'tools.list_failed',
        server: f.server,
        message: `server ${f.server} could not be listed, its tools are missing: ${f.error}`,
      },
    });
  }
}

/** A Session (MCP-shaped) tools/call request, its fields checked. */
export function toolCallFromMcp(params: JsonObject): CallReq {
  return {
    name: requiredString(params, 'name', 'tools/call'),
    args: objectParam(params, 'arguments', 'tools/call'),
    progress: hasProgressToken(params),
  };
}

/** A call whose client asked for no progress asks none of the server either (see CallReq.progress). */
function toolCallOptions(req: CallReq, ctx: CallContext): CallContext {
  return req.progress === false ? { ...ctx, onProgress: undefined } : ctx;
}

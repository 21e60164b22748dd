import type { ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import type { ControlApi } from '../../../domain/control.js';
import type { RequestOpts, ResourceEntry, ResourceSnapshot, ResourceTemplateEntry } from '../../../domain/control-areas.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../../gen/mcpd/control/v1/control.js';
import { collisionToPb } from '../convert.js';
import { stream, unary } from '../handler-kit.js';
import { encodeJson } from '../json-bytes.js';
import { toServiceError } from '../status-map.js';

type Handlers = Pick<
  ControlPlaneServer,
  'listResources' | 'listResourceTemplates' | 'watchResources' | 'readResource' | 'subscribeResource'
>;

/** Cancellation and the gRPC deadline of a unary call, as request options for the core. */
export function unaryRequestOpts(call: ServerUnaryCall<unknown, unknown>): RequestOpts {
  const ac = new AbortController();
  call.on('cancelled', () => ac.abort(new Error('the gRPC call was cancelled')));
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  const timeoutMs = Number.isFinite(at) && at > 0 ? Math.max(1, at - Date.now()) : undefined;
  return { signal: ac.signal, timeoutMs };
}

const pageSize = (n: number) => (n > 0 ? n : undefined);

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

/** SubscribeResource: one ResourceUpdate per downstream notifications/resources/updated, until the client goes away. */
function subscribeResource(api: ControlApi) {
  return (call: ServerWritableStream<pb.SubscribeResourceRequest, pb.ResourceUpdate>) => {
    const ac = new AbortController();
    const stop = () => ac.abort();
    call.on('cancelled', stop);
    call.on('close', stop);
    void (async () => {
      try {
        const updates = await api.resources.subscribe(call.request.caller || 'default', call.request.uri, ac.signal);
        for await (const p of updates) call.write({ uri: typeof p.uri === 'string' ? p.uri : call.request.uri, paramsJson: encodeJson(p) });
        call.end();
      } catch (e) {
        call.emit('error', toServiceError(e));
      }
    })();
  };
}

/** gRPC handlers for resources. */
export function resourceHandlers(api: ControlApi): Handlers {
  return {
    listResources: unary(async (req: pb.ListResourcesRequest) => {
      const page = await api.resources.list(req.caller || 'default', req.cursor || undefined, pageSize(req.pageSize));
      return { etag: page.etag, resources: page.items.map(resourceToPb), nextCursor: page.nextCursor ?? '' };
    }),
    listResourceTemplates: unary(async (req: pb.ListResourceTemplatesRequest) => {
      const page = await api.resources.listTemplates(req.caller || 'default', req.cursor || undefined, pageSize(req.pageSize));
      return { etag: page.etag, templates: page.items.map(templateToPb), nextCursor: page.nextCursor ?? '' };
    }),
    watchResources: stream(
      (req: pb.WatchResourcesRequest) => api.resources.watch(req.caller || 'default', req.lastEtag || undefined),
      snapshotToPb,
    ),
    readResource: unary(async (req: pb.ReadResourceRequest, call) => {
      const result = await api.resources.read(
        req.caller || 'default',
        req.uri,
        unaryRequestOpts(call as ServerUnaryCall<unknown, unknown>),
      );
      return { resultJson: encodeJson(result) };
    }),
    subscribeResource: subscribeResource(api),
  };
}

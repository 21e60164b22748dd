import type { ContextChange, DesktopView, FinderQuery, FinderView, Subscription } from '../control/control-areas.js';
import type { ControlApi } from '../control/control.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { encodeJson } from '../session/json-bytes.js';
import type { SessionHandler, SessionRequestContext } from '../session/session-handler.js';
import { absent, method, type Area, type AreaMethod } from './area.js';
import { callerOf, optionalInt, optionalString, optionalStrings } from './params.js';

/** Core → gateway: the caller's desktop or finder changed; params `{kind, etag, reason}`. */
const CONTEXT_UPDATED = 'mcpd/context/updated';

type Kind = 'desktop' | 'finder';

interface DesktopReq {
  size?: number;
  window?: string;
}

const changeToPb = (c: ContextChange) => ({ etag: c.etag, reason: c.reason });
const onGateway = (kind: Kind, as: string) => absent(`the core serves it as ${as} of mcpd://${kind}, which the gateway forwards`);

/**
 * Context channels: the caller's Desktop (its servers' window:// resources, organized) and Finder (their
 * dpe:// documents). The core also lists and serves them as the `mcpd://desktop` / `mcpd://finder`
 * resources and the `mcpd_finder` tool (core/app/context-surface.ts; docs/desktop.md, docs/finder.md).
 */
export const contextArea: Area = {
  name: 'context',
  methods: [
    method<DesktopReq, DesktopView>({
      name: 'mcpd/desktop/read',
      // A read like any other: it can start servers and read their resources (the stop refuses it, drains it).
      admission: 'core',
      routed: false,
      invoke: (api, req, ctx) => api.context.desktop(ctx.caller, req.size, req.window),
      session: {
        fromMcp: (params) => ({ size: optionalInt(params, 'size'), window: optionalString(params, 'window') }),
        toMcp: (v) => ({ windows: v.windows, warnings: v.warnings, etag: v.etag }),
      },
      grpc: {
        rpc: 'getDesktop',
        fromPb: (r: pb.GetDesktopRequest) => ({ caller: callerOf(r.caller), req: { size: r.desktopSize, window: r.window || undefined } }),
        toPb: (v): pb.GetDesktopResponse => ({ windows: v.windows, warnings: v.warnings, etag: v.etag }),
      },
      gateway: onGateway('desktop', 'resources/read'),
    }),
    ...channelWatch('desktop'),
    method<FinderQuery, FinderView>({
      name: 'mcpd/finder/query',
      admission: 'core',
      routed: false,
      invoke: (api, query, ctx) => api.context.finder(ctx.caller, query),
      session: {
        fromMcp: (params) => ({
          keywords: optionalStrings(params, 'keywords'),
          fileType: optionalString(params, 'file_type'),
          offset: optionalInt(params, 'offset'),
          limit: optionalInt(params, 'limit'),
        }),
        toMcp: (v) => ({ documents: v.documents, total_count: v.totalCount }),
      },
      grpc: {
        rpc: 'getFinder',
        fromPb: (r: pb.GetFinderRequest) => ({
          caller: callerOf(r.caller),
          req: {
            keywords: r.keywords.length ? r.keywords : undefined,
            fileType: r.fileType || undefined,
            offset: r.offset,
            limit: r.limit,
          },
        }),
        toPb: (v): pb.GetFinderResponse => ({ documentsJson: v.documents.map((d) => encodeJson(d)), totalCount: v.totalCount }),
      },
      gateway: onGateway('finder', 'resources/read (and the mcpd_finder tool)'),
    }),
    ...channelWatch('finder'),
  ],
};

/** Subscribe and unsubscribe on the Session, the Watch stream on gRPC. */
function channelWatch(kind: Kind): AreaMethod[] {
  const watch = (api: ControlApi, caller: string) =>
    kind === 'desktop' ? api.context.watchDesktop(caller) : api.context.watchFinder(caller);
  return [
    method({
      name: `mcpd/${kind}/subscribe`,
      admission: 'free',
      routed: false,
      session: { handle: subscribe(kind, watch) },
      grpc: absent(`Watch${kind === 'desktop' ? 'Desktop' : 'Finder'} streams the changes`),
      gateway: onGateway(kind, 'resources/subscribe'),
    }),
    method({
      name: `mcpd/${kind}/unsubscribe`,
      admission: 'free',
      routed: false,
      session: { handle: unsubscribe(kind) },
      grpc: absent(`ending the Watch${kind === 'desktop' ? 'Desktop' : 'Finder'} stream unsubscribes`),
      gateway: onGateway(kind, 'resources/unsubscribe'),
    }),
    method({
      name: `mcpd/${kind}/watch`,
      admission: 'free',
      routed: false,
      session: absent(`mcpd/${kind}/subscribe makes the core push ${CONTEXT_UPDATED}`),
      grpc: {
        rpc: kind === 'desktop' ? 'watchDesktop' : 'watchFinder',
        open: (api, r: pb.WatchDesktopRequest | pb.WatchFinderRequest) => watch(api, callerOf(r.caller)),
        itemToPb: changeToPb,
      },
      gateway: absent(`the gateway turns ${CONTEXT_UPDATED} into notifications/resources/updated of mcpd://${kind}`),
    }),
  ];
}

/** Per gateway session: the open watch of each kind. */
const sessionWatches = new Map<string, Map<Kind, Subscription<ContextChange>>>();

function watchesOf(ctx: SessionRequestContext): Map<Kind, Subscription<ContextChange>> {
  const id = ctx.session.id;
  let m = sessionWatches.get(id);
  if (!m) {
    const watches = new Map<Kind, Subscription<ContextChange>>();
    m = watches;
    sessionWatches.set(id, watches);
    ctx.onClose(() => {
      // A watch's return() only marks it done and settles at once; closing the session need not wait.
      for (const w of watches.values()) void w.return?.();
      sessionWatches.delete(id);
    });
  }
  return m;
}

/**
 * Opens the caller's watch and forwards each change as CONTEXT_UPDATED. The first item is the
 * current view: it is forwarded only when it differs from the etag the gateway last read.
 */
function subscribe(kind: Kind, watch: (api: ControlApi, caller: string) => Subscription<ContextChange>): SessionHandler {
  return async (api, params, ctx) => {
    const known = optionalString(params, 'etag');
    const watches = watchesOf(ctx);
    if (watches.has(kind)) return {};
    const sub = watch(api, ctx.session.caller);
    watches.set(kind, sub);
    // Lives as long as the subscription: a LatestWins watch ends rather than rejects, and notify() only queues a frame.
    void (async () => {
      let first = true;
      for await (const c of sub) {
        const skip = first && (known === undefined || known === c.etag);
        first = false;
        if (!skip) ctx.notify(CONTEXT_UPDATED, { kind, etag: c.etag, reason: c.reason });
      }
    })();
    return {};
  };
}

function unsubscribe(kind: Kind): SessionHandler {
  return async (_api, _params, ctx) => {
    const watches = watchesOf(ctx);
    // Ends the watch loop above; return() settles at once, so the unsubscribe answers without waiting.
    void watches.get(kind)?.return?.();
    watches.delete(kind);
    return {};
  };
}

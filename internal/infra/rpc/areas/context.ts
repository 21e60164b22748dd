import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer } from '../../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../../gen/mcpd/control/v1/control.js';
import { stream, unary } from '../handler-kit.js';
import { encodeJson } from '../json-bytes.js';

type Handlers = Pick<ControlPlaneServer, 'getDesktop' | 'watchDesktop' | 'getFinder' | 'watchFinder'>;

/** gRPC handlers for the Desktop and Finder context channels (docs/desktop.md, docs/finder.md). */
export function contextHandlers(api: ControlApi): Handlers {
  return {
    getDesktop: unary<pb.GetDesktopRequest, pb.GetDesktopResponse>(async (req) => {
      const v = await api.context.desktop(req.caller, req.desktopSize, req.window || undefined);
      return { windows: v.windows, warnings: v.warnings, etag: v.etag };
    }),
    watchDesktop: stream<pb.WatchDesktopRequest, { etag: string; reason: string }, pb.DesktopChanged>(
      (req) => api.context.watchDesktop(req.caller),
      (c) => ({ etag: c.etag, reason: c.reason }),
    ),
    getFinder: unary<pb.GetFinderRequest, pb.GetFinderResponse>(async (req) => {
      const v = await api.context.finder(req.caller, {
        keywords: req.keywords.length ? req.keywords : undefined,
        fileType: req.fileType || undefined,
        offset: req.offset,
        limit: req.limit,
      });
      return { documentsJson: v.documents.map((d) => encodeJson(d)), totalCount: v.totalCount };
    }),
    watchFinder: stream<pb.WatchFinderRequest, { etag: string; reason: string }, pb.FinderChanged>(
      (req) => api.context.watchFinder(req.caller),
      (c) => ({ etag: c.etag, reason: c.reason }),
    ),
  };
}

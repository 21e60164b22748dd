import type { SurfaceAdapter } from '../adapter.js';
import { trackLists } from './list-tracking.js';

/** tools/list, tools/call (progress and cancellation pass through) and list_changed. */
export function toolsAdapter(): SurfaceAdapter {
  return {
    capabilities: { tools: { listChanged: true } },
    register(ctx) {
      trackLists(ctx, { methods: ['tools/list'], changed: 'notifications/tools/list_changed', what: 'tools' });
    },
  };
}

import { TASK_NOTIFICATION } from '../../contract/model/tasks.js';
import type { SurfaceAdapter } from '../adapter.js';

/**
 * The changes of tasks the core pushes (`notifications/tasks`), passed to the client. The core pushes
 * them only to a session that watched those tasks (`mcpd/tasks/watch`): a 2026-07-28 listen stream that
 * names `taskIds` (era2026/listen.ts). A 2025-11-25 session never watches, so it never gets one.
 */
export function tasksAdapter(): SurfaceAdapter {
  return {
    capabilities: {},
    register(ctx) {
      ctx.onCoreNotification(TASK_NOTIFICATION, (params) => {
        // Ignored: a change for a listener that has gone is moot; the stream's close ends its lane.
        void ctx.server.notify(TASK_NOTIFICATION, params).catch(() => {});
      });
    },
  };
}

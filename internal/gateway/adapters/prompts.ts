import type { SurfaceAdapter } from '../adapter.js';
import { trackLists } from './list-tracking.js';

/**
 * prompts/list (its etag remembered), list_changed; prompts/get and completion/complete are plain
 * forwards (progress and cancellation pass through).
 */
export function promptsAdapter(): SurfaceAdapter {
  return {
    capabilities: { prompts: { listChanged: true }, completions: {} },
    register(ctx) {
      trackLists(ctx, { methods: ['prompts/list'], changed: 'notifications/prompts/list_changed', what: 'prompts' });
    },
  };
}

import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { SurfaceAdapter } from '../adapter.js';

/**
 * What a client that never sends logging/setLevel receives: warnings and worse (a server crashed, was
 * suspended, could not be listed …) — the messages that explain a failing call. Chattier levels are
 * opt-in. See docs/operations.md.
 */
const DEFAULT_CLIENT_LOG_LEVEL: LoggingLevel = 'warning';

/**
 * MCP logging: the client's `logging/setLevel` goes to the core, which pushes the caller's log entries
 * (its servers' stderr and notifications/message, and core events about them) at that level or above.
 * The level is re-sent after every reconnect, so a core restart does not silence the client.
 */
export function logsAdapter(): SurfaceAdapter {
  let level: LoggingLevel = DEFAULT_CLIENT_LOG_LEVEL;
  return {
    capabilities: { logging: {} },
    register(ctx) {
      ctx.adapt('logging/setLevel', async (params, _extra, next) => {
        await next({ level: params.level as LoggingLevel });
        level = params.level as LoggingLevel;
        return {};
      });
      ctx.onCoreNotification('notifications/message', (params) => {
        void ctx.server
          .notify('notifications/message', params)
          // Ignored: a log line for a client that has gone is moot; the transport's close ends the session.
          .catch(() => {});
      });
      ctx.onConnected((session) => {
        session
          .request('logging/setLevel', { level })
          .catch((e: Error) => ctx.log(`setting the log level on the core failed: ${e.message}`));
      });
    },
  };
}

import type { SessionHandler } from '../session-handler.js';

/** Session methods for logs (MCP method name → handler). */
export const logSessionHandlers: Record<string, SessionHandler> = {};

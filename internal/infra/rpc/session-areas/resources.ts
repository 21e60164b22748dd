import type { SessionHandler } from '../session-handler.js';

/** Session methods for resources (MCP method name → handler). */
export const resourceSessionHandlers: Record<string, SessionHandler> = {};

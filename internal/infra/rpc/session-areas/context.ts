import type { SessionHandler } from '../session-handler.js';

/** Session methods for context (MCP method name → handler). */
export const contextSessionHandlers: Record<string, SessionHandler> = {};

import type { SessionHandler } from '../session-handler.js';

/** Session methods for prompts (MCP method name → handler). */
export const promptSessionHandlers: Record<string, SessionHandler> = {};

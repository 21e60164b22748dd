import type { CallerSession, ControlApi } from '../../domain/control.js';
import type { ProgressUpdate } from '../../domain/downstream.js';
import type { JsonObject, JsonValue } from '../../domain/json.js';

export interface SessionRequestContext {
  session: CallerSession;
  signal: AbortSignal;
  timeoutMs?: number;
  onProgress: (p: ProgressUpdate) => void;
  /** Sends a notification to this session's gateway (e.g. notifications/resources/updated). */
  notify: (method: string, params: JsonObject) => void;
  /** Runs `cb` once when the session ends (at once if it already has): per-session state is released there. */
  onClose: (cb: () => void) => void;
}

export type SessionHandler = (api: ControlApi, params: JsonObject, ctx: SessionRequestContext) => Promise<JsonValue>;

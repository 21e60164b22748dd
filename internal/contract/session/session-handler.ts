import type { CallerSession, ControlApi } from '../control/control.js';
import type { ProgressUpdate, ResultJsonSink } from '../model/downstream.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';

export interface SessionRequestContext {
  session: CallerSession;
  signal: AbortSignal;
  timeoutMs?: number;
  onProgress: (p: ProgressUpdate) => void;
  /** Answers the request with a tool result's JSON text at once (ResultJsonSink); the handler's result is then not sent. */
  onResultJson?: ResultJsonSink;
  /** Sends a notification to this session's gateway (e.g. notifications/resources/updated). */
  notify: (method: string, params: JsonObject) => void;
  /** Runs `cb` once when the session ends (at once if it already has): per-session state is released there. */
  onClose: (cb: () => void) => void;
}

export type SessionHandler = (api: ControlApi, params: JsonObject, ctx: SessionRequestContext) => Promise<JsonValue>;

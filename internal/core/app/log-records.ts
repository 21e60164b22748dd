import type { JsonObject, JsonValue } from '../../shared/json.js';
import { LOG_LEVELS, type LogLevel } from '../../contract/model/profile.js';
import type { BusEntry } from '../infra/telemetry/log-bus.js';

/** A runaway server must not turn one line into megabytes on every reader. */
const MAX_TEXT = 16 * 1024;

const WORD_LEVELS: Record<string, LogLevel> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  notice: 'notice',
  warn: 'warning',
  warning: 'warning',
  err: 'error',
  error: 'error',
  crit: 'critical',
  critical: 'critical',
  fatal: 'critical',
  alert: 'alert',
  emerg: 'emergency',
  emergency: 'emergency',
};

/** pino/bunyan numeric levels. */
function numericLevel(n: number): LogLevel {
  if (n >= 60) return 'critical';
  if (n >= 50) return 'error';
  if (n >= 40) return 'warning';
  if (n >= 30) return 'info';
  return 'debug';
}

/**
 * stderr is unstructured, so the level is a best guess: a JSON line's own level field, or a leading
 * level word ("ERROR:", "[warn]", "Error: …" from an uncaught exception); otherwise info.
 */
export function stderrLevel(line: string): LogLevel {
  const t = line.trimStart();
  if (t.startsWith('{')) {
    try {
      const o = JSON.parse(t) as Record<string, unknown>;
      const v = o.level ?? o.severity ?? o.lvl;
      if (typeof v === 'number') return numericLevel(v);
      const word = typeof v === 'string' ? WORD_LEVELS[v.toLowerCase()] : undefined;
      if (word) return word;
    } catch {
      // not JSON after all
    }
  }
  const [, word] = /^\[?([a-z]+)\b/i.exec(t) ?? [];
  return (word && WORD_LEVELS[word.toLowerCase()]) || 'info';
}

function clip(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}… (${s.length - MAX_TEXT} more characters)` : s;
}

export function stderrEntry(fingerprint: string, instance: string, line: string): BusEntry {
  return {
    fingerprint,
    record: { time: Date.now(), level: stderrLevel(line), source: 'stderr', instance, event: 'server.stderr', message: clip(line) },
  };
}

/** A downstream `notifications/message` (MCP LoggingMessageNotification params). */
export function notificationEntry(fingerprint: string, instance: string, params: JsonObject): BusEntry {
  const level =
    typeof params.level === 'string' && (LOG_LEVELS as readonly string[]).includes(params.level) ? (params.level as LogLevel) : 'info';
  const data: JsonValue = params.data ?? null;
  const fields: JsonObject = { data };
  if (typeof params.logger === 'string') fields.logger = params.logger;
  const message = clip(typeof data === 'string' ? data : JSON.stringify(data));
  return { fingerprint, record: { time: Date.now(), level, source: 'notification', instance, event: 'server.log', message, fields } };
}

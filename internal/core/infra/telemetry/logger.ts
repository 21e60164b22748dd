import { LOG_LEVELS, type LogLevel } from '../../../contract/model/profile.js';
import { isoTime } from '../../../shared/iso-time.js';
import { secretRedactor } from '../../../shared/redactor.js';
import { plainFields } from './plain-fields.js';
import { stderrLines } from './stderr-lines.js';

export type LogFn = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

/** Where a logger's lines go; `urgent` (a warning or worse) must not be held back. */
export type LineWriter = (line: string, urgent: boolean) => void;

const URGENT = LOG_LEVELS.indexOf('warning');

/**
 * Structured JSON lines on stderr (stdout may belong to MCP), batched while they come fast
 * (stderr-lines.ts). One object per line: time, level, component, event, then the fields.
 */
export function createLogger(
  component: string,
  minLevel: LogLevel = 'info',
  write: LineWriter = (l, urgent) => stderrLines().line(l, urgent),
): LogFn {
  const min = LOG_LEVELS.indexOf(minLevel);
  return (level, event, fields) => {
    const rank = LOG_LEVELS.indexOf(level);
    if (rank < min) return;
    const time = isoTime(Date.now());
    if (fields === undefined || plainLine(fields)) {
      const head = `{"time":${maskedJson(time)},"level":${maskedJson(level)},"component":${maskedJson(component)},"event":${maskedJson(event)}`;
      write(`${head}${fields ? plainMembers(fields) : ''}}\n`, rank >= URGENT);
      return;
    }
    const masked = secretRedactor.value({ time, level, component, event, ...fields });
    // A replacer makes JSON.stringify call back for every key: needed only where a field may hold an Error.
    write(`${JSON.stringify(masked, errorsAsText)}\n`, rank >= URGENT);
  };
}

/** The names the line's head writes: a field of that name takes the general path (it replaces the head's value there). */
const HEAD = new Set(['time', 'level', 'component', 'event']);

/**
 * Fields written member by member: plain values (plain-fields.ts) under names the head does not use and that
 * are not index-like (an object puts those first, before the head).
 */
function plainLine(fields: Record<string, unknown>): boolean {
  if (!plainFields(fields)) return false;
  for (const k in fields) {
    const c = k.charCodeAt(0);
    if (HEAD.has(k) || (c >= 48 && c <= 57)) return false;
  }
  return true;
}

/**
 * `,"name":value` for each plain field, masked as secretRedactor.value masks (names too), undefined left out:
 * the text JSON.stringify gives the spread entry, without building and walking it — this runs for every
 * tool call (logger.test.ts holds the two to the same text).
 */
function plainMembers(fields: Record<string, unknown>): string {
  let s = '';
  for (const k in fields) {
    const v = fields[k];
    if (v === undefined) continue;
    s += `,${maskedJson(k)}:${typeof v === 'string' ? maskedJson(v) : JSON.stringify(v)}`;
  }
  return s;
}

function maskedJson(text: string): string {
  return JSON.stringify(secretRedactor.text(text));
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

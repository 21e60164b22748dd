import { writeSync } from 'node:fs';
import { LOG_LEVELS, type LogLevel } from '../../../contract/model/profile.js';
import { secretRedactor } from '../../../shared/redactor.js';
import { plainFields } from './plain-fields.js';

export type LogFn = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

/**
 * Structured JSON lines on stderr (stdout may belong to MCP). One object per line:
 * time, level, component, event, then the fields.
 */
export function createLogger(component: string, minLevel: LogLevel = 'info', write: (line: string) => void = stderrLines()): LogFn {
  const min = LOG_LEVELS.indexOf(minLevel);
  return (level, event, fields) => {
    if (LOG_LEVELS.indexOf(level) < min) return;
    const entry = { time: new Date().toISOString(), level, component, event, ...fields };
    const masked = secretRedactor.value(entry);
    // A replacer makes JSON.stringify call back for every key: needed only where a field may hold an Error.
    write(`${fields === undefined || plainFields(fields) ? JSON.stringify(masked) : JSON.stringify(masked, errorsAsText)}\n`);
  };
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

let shared: ((line: string) => void) | undefined;

/**
 * Lines to stderr, written once per turn of the event loop. A busy core logs a line per tool call, and
 * stderr on a pipe is a blocking system call per write: one write of the turn's lines costs one. What is
 * still pending when the process exits is written out then, synchronously.
 */
function stderrLines(): (line: string) => void {
  if (shared) return shared;
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text !== '') process.stderr.write(text);
  };
  process.once('exit', () => {
    try {
      if (pending !== '') writeSync(2, pending);
    } catch {
      // stderr is gone (a closed pipe): nothing left to tell
    }
    pending = '';
  });
  shared = (line) => {
    if (pending === '') setImmediate(flush);
    pending += line;
  };
  return shared;
}

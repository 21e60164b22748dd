import { LOG_LEVELS, type LogLevel } from '../../../contract/model/profile.js';
import { secretRedactor } from '../../../shared/redactor.js';
import { plainFields } from './plain-fields.js';

export type LogFn = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

/**
 * Structured JSON lines on stderr (stdout may belong to MCP). One object per line:
 * time, level, component, event, then the fields.
 */
export function createLogger(
  component: string,
  minLevel: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): LogFn {
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

import { McpdError } from '../../shared/errors.js';
import { LOG_LEVELS, type LogLevel } from './profile.js';

/** Parses an MCP level name (empty = fallback); a clear error names the accepted ones. */
export function parseLevel(value: string | undefined, fallback: LogLevel, where: string): LogLevel {
  if (value === undefined || value === '') return fallback;
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new McpdError('INVALID_ARGUMENT', `${where}: unknown log level "${value}"; use one of ${LOG_LEVELS.join(', ')}`);
}

export function levelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

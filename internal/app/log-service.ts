import type { LogRecord, LogsApi, Subscription } from '../domain/control-areas.js';
import type { LogLevel } from '../domain/profile.js';
import type { AreaDeps } from './area-deps.js';
import { notYet } from './resource-service.js';

/** Core events, downstream stderr and notifications/message, scoped per caller. */
export class LogService implements LogsApi {
  constructor(private readonly deps: AreaDeps) {}

  stream(_caller: string, _minLevel: LogLevel, _signal: AbortSignal): Subscription<LogRecord> {
    throw notYet('StreamLogs');
  }
}

import type { LogRecord, LogsApi, LogStreamOptions, Subscription } from '../../contract/control/control-areas.js';
import type { LogLevel } from '../../contract/model/profile.js';
import { LogBus } from '../infra/telemetry/log-bus.js';
import type { AreaDeps, CoreLog } from './area-deps.js';
import { callerView } from './log-scope.js';
import { notificationEntry, stderrEntry } from './log-records.js';

/** The bus the composition root tees the core's log into, and where downstream lines are echoed. */
export interface LogTelemetry {
  bus: LogBus;
  /** Writes to the core's own log (stderr) without going onto the bus again. */
  echo: CoreLog;
}

/** Core events, downstream stderr and notifications/message, scoped per caller. */
export class LogService implements LogsApi {
  readonly bus: LogBus;
  private readonly echo: CoreLog;

  constructor(
    private readonly deps: AreaDeps,
    telemetry?: LogTelemetry,
  ) {
    this.bus = telemetry?.bus ?? new LogBus();
    this.echo = telemetry?.echo ?? deps.log;
    deps.pools.onStderr((fingerprint, instance, line) => {
      const e = stderrEntry(fingerprint, instance, line);
      this.bus.publish(e);
      this.echo(echoLevel(e.record.level), 'server.stderr', { fingerprint, instance, line: e.record.message });
    });
    deps.pools.onNotification((fingerprint, instance, method, params) => {
      if (method !== 'notifications/message') return;
      const e = notificationEntry(fingerprint, instance, params);
      this.bus.publish(e);
      this.echo(echoLevel(e.record.level), 'server.log', { fingerprint, instance, ...e.record.fields });
    });
  }

  stream(caller: string, minLevel: LogLevel, signal: AbortSignal, opts: LogStreamOptions = {}): Subscription<LogRecord> {
    return this.bus.subscribe(callerView(caller, minLevel, this.deps.profileOf), { signal, backlog: opts.backlog });
  }

  recent(caller: string, minLevel: LogLevel): LogRecord[] {
    return this.bus.recent(callerView(caller, minLevel, this.deps.profileOf));
  }

  get subscriberCount(): number {
    return this.bus.subscriberCount;
  }

  close(): void {
    this.bus.close();
  }
}

/** The core's stderr log knows four levels; MCP has eight. */
function echoLevel(level: LogLevel): 'debug' | 'info' | 'warning' | 'error' {
  if (level === 'debug') return 'debug';
  if (level === 'info' || level === 'notice') return 'info';
  if (level === 'warning') return 'warning';
  return 'error';
}

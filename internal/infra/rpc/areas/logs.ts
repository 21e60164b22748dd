import type { ServerWritableStream } from '@grpc/grpc-js';
import type { LogRecord } from '../../../domain/control-areas.js';
import type { ControlApi } from '../../../domain/control.js';
import type { ControlPlaneServer, LogEntry, StreamLogsRequest } from '../../../gen/mcpd/control/v1/control.js';
import { parseLevel } from '../../../domain/log-level.js';
import { encodeJson } from '../json-bytes.js';
import { toServiceError } from '../status-map.js';

type Handlers = Pick<ControlPlaneServer, 'streamLogs'>;

/**
 * Request metadata key: "false" (or "0") = send the recent entries and end, like `tail` without `-f`.
 * Metadata rather than a proto field so older clients keep their follow-forever behaviour.
 */
export const LOGS_FOLLOW_METADATA = 'mcpd-follow';

/** gRPC handlers for log streaming. */
export function logHandlers(api: ControlApi): Handlers {
  return { streamLogs: (call) => void serveLogs(api, call) };
}

export function toLogEntry(r: LogRecord): LogEntry {
  return {
    timeUnixMs: r.time,
    level: r.level,
    source: r.source,
    server: r.server ?? '',
    instance: r.instance ?? '',
    event: r.event,
    message: r.message,
    fieldsJson: r.fields ? encodeJson(r.fields) : Buffer.alloc(0),
  };
}

async function serveLogs(api: ControlApi, call: ServerWritableStream<StreamLogsRequest, LogEntry>): Promise<void> {
  const ac = new AbortController();
  try {
    const caller = call.request.caller || 'default';
    const level = parseLevel(call.request.minLevel, 'info', 'StreamLogs min_level');
    const follow = !['false', '0'].includes(String(call.metadata.get(LOGS_FOLLOW_METADATA)[0] ?? 'true'));
    if (!follow) {
      for (const r of api.logs.recent(caller, level)) call.write(toLogEntry(r));
      call.end();
      return;
    }
    const it = api.logs.stream(caller, level, ac.signal, { backlog: true });
    const stop = () => ac.abort();
    call.on('cancelled', stop);
    call.on('close', stop);
    for await (const r of it) {
      // Honour gRPC flow control: while the client does not read, entries wait in the bounded
      // per-reader queue (oldest dropped) instead of piling up in the transport's buffers.
      if (!call.write(toLogEntry(r))) await drained(call, ac.signal);
    }
    call.end();
  } catch (e) {
    ac.abort();
    call.emit('error', toServiceError(e));
  }
}

function drained(call: ServerWritableStream<StreamLogsRequest, LogEntry>, signal: AbortSignal): Promise<void> {
  return new Promise((res) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      res();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

import { SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { LogRecord } from '../control/control-areas.js';
import type { ControlApi } from '../control/control.js';
import { McpdError } from '../../shared/errors.js';
import type { LogLevel } from '../model/profile.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { encodeJson } from '../session/json-bytes.js';
import type { SessionHandler, SessionRequestContext } from '../session/session-handler.js';
import { parseLevel } from '../model/log-level.js';
import { toMcpMessage } from './log-mcp.js';
import { absent, method, type Area } from './area.js';
import { callerOf } from './params.js';

/**
 * Request metadata key: "false" (or "0") = send the recent entries and end, like `tail` without `-f`.
 * Metadata rather than a proto field so older clients keep their follow-forever behaviour.
 */
export const LOGS_FOLLOW_METADATA = 'mcpd-follow';

/** Logs: StreamLogs over gRPC; on the Session, `logging/setLevel` makes the core push `notifications/message`. */
export const logsArea: Area = {
  name: 'logs',
  methods: [
    method({
      name: 'logging/setLevel',
      admission: 'free',
      routed: false,
      session: { handle: (api, params, ctx) => setLevel(api, params, ctx) },
      grpc: absent('StreamLogs names its min_level per stream'),
      // Replaces the SDK Server's own handler, which would only filter locally.
      gateway: { schema: SetLevelRequestSchema },
    }),
    method({
      name: 'logs/stream',
      admission: 'free',
      routed: false,
      session: absent("logging/setLevel makes the core push the caller's entries as notifications/message"),
      grpc: {
        rpc: 'streamLogs',
        open: (api, r: pb.StreamLogsRequest, ctx) => {
          const caller = callerOf(r.caller);
          const level = parseLevel(r.minLevel, 'info', 'StreamLogs min_level');
          const follow = !['false', '0'].includes(ctx.metadata(LOGS_FOLLOW_METADATA) ?? 'true');
          return follow ? api.logs.stream(caller, level, ctx.signal, { backlog: true }) : api.logs.recent(caller, level).values();
        },
        itemToPb: toLogEntry,
      },
      gateway: absent('the gateway forwards notifications/message after logging/setLevel'),
    }),
  ],
};

function toLogEntry(r: LogRecord): pb.LogEntry {
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

/** One forwarding loop per gateway session; a new level replaces the loop. */
const forwarding = new Map<string, AbortController>();

/**
 * `logging/setLevel`: from now on the core pushes this session's caller's log entries at or above
 * `level` as `notifications/message` ({level, logger, data}). Live entries only — a level change is not
 * a request for history (that is what StreamLogs / `mcpdctl logs` are for).
 */
const setLevel: SessionHandler = async (api, params, ctx) => {
  if (typeof params.level !== 'string') throw new McpdError('INVALID_ARGUMENT', 'logging/setLevel needs a string "level"');
  const level = parseLevel(params.level, 'info', 'logging/setLevel');
  startForwarding(api, level, ctx);
  return {};
};

function startForwarding(api: ControlApi, level: LogLevel, ctx: SessionRequestContext): void {
  const id = ctx.session.id;
  const known = forwarding.has(id);
  forwarding.get(id)?.abort();
  const ac = new AbortController();
  forwarding.set(id, ac);
  if (!known) {
    ctx.onClose(() => {
      forwarding.get(id)?.abort();
      forwarding.delete(id);
    });
  }
  const it = api.logs.stream(ctx.session.caller, level, ac.signal);
  // Lives as long as the stream: the bus subscription ends on abort or close rather than rejecting, and notify() only queues a frame.
  void (async () => {
    for await (const r of it) ctx.notify('notifications/message', toMcpMessage(r));
  })();
}

/** Sessions that currently forward logs (tests, diagnostics). */
export function forwardingSessions(): number {
  return forwarding.size;
}

import type { ControlApi } from '../../../domain/control.js';
import { McpdError } from '../../../domain/errors.js';
import type { LogLevel } from '../../../domain/profile.js';
import { parseLevel } from '../../../domain/log-level.js';
import { toMcpMessage } from '../../telemetry/log-mcp.js';
import type { SessionHandler, SessionRequestContext } from '../session-handler.js';

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
  void (async () => {
    for await (const r of it) ctx.notify('notifications/message', toMcpMessage(r));
  })();
}

/** Session methods for logs (MCP method name → handler). */
export const logSessionHandlers: Record<string, SessionHandler> = { 'logging/setLevel': setLevel };

/** Sessions that currently forward logs (tests, diagnostics). */
export function forwardingSessions(): number {
  return forwarding.size;
}

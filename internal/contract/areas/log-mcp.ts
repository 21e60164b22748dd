import type { LogRecord } from '../control/control-areas.js';
import type { JsonObject } from '../../shared/json.js';

/**
 * MCP `notifications/message` params for a record, as the gateway forwards it to its client. `logger`
 * names the server (and the server's own logger, as "server/logger"); core events use "mcpd".
 */
export function toMcpMessage(r: LogRecord): JsonObject {
  if (r.source === 'notification') {
    const inner = typeof r.fields?.logger === 'string' ? r.fields.logger : undefined;
    const logger = inner ? `${r.server ?? 'server'}/${inner}` : (r.server ?? 'server');
    return { level: r.level, logger, data: r.fields?.data ?? r.message };
  }
  if (r.source === 'stderr') return { level: r.level, logger: r.server ?? 'server', data: r.message };
  const data: JsonObject = { event: r.event, message: r.message };
  if (r.server) data.server = r.server;
  if (r.instance) data.instance = r.instance;
  return { level: r.level, logger: 'mcpd', data: { ...r.fields, ...data } };
}

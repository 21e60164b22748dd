import type { ToolCallRecord } from '../../internal/core/domain/history/tool-call-history.js';

/** A successful call record for tests: a call to `server`, `i` seconds into 2026. */
export function callRecord(server: string, i = 0): ToolCallRecord {
  return {
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    req_id: `r${i}`,
    server,
    tool: 't',
    parameters: {},
    timeout: null,
    success: true,
    error: null,
  };
}

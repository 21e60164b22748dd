import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import { EraError, HEADER_MISMATCH, META_PROTOCOL_VERSION } from './protocol.js';

/** The method whose `Mcp-Name` header mirrors which body field (SEP-2243). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // SEP-2663's routing headers: a task's requests name the task.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim();
}

/**
 * The routing headers of a 2026-07-28 request must say what its body says: `Mcp-Method` always,
 * `Mcp-Name` for tools/call, prompts/get and resources/read, `MCP-Protocol-Version` when sent.
 * Proxies route on them, so a mismatch is refused (-32020, HTTP 400) rather than guessed at.
 */
export function checkHeaders(req: IncomingMessage, method: string, params: JsonObject): void {
  const m = header(req, 'mcp-method');
  if (m === undefined) throw mismatch(`the Mcp-Method header is missing; send "Mcp-Method: ${method}"`);
  if (m !== method) throw mismatch(`the Mcp-Method header says "${m}" but the body's method is "${method}"`);
  const field = NAME_FIELD[method];
  if (field !== undefined) {
    const want = params[field];
    const n = header(req, 'mcp-name');
    if (n === undefined) throw mismatch(`the Mcp-Name header is missing; send the body's params.${field} in it`);
    if (typeof want === 'string' && n !== want) throw mismatch(`the Mcp-Name header says "${n}" but params.${field} is "${want}"`);
  }
  const v = header(req, 'mcp-protocol-version');
  const meta = params._meta;
  const version = isJsonObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  if (v !== undefined && typeof version === 'string' && v !== version) {
    throw mismatch(`the MCP-Protocol-Version header says "${v}" but params._meta["${META_PROTOCOL_VERSION}"] is "${version}"`);
  }
}

function mismatch(why: string): EraError {
  return new EraError(400, HEADER_MISMATCH, `Header mismatch: ${why}`);
}

import { isJsonObject, type JsonObject } from '../shared/json.js';
import { JsonRpcCode } from './error-map.js';

/** A request whose params the gateway refuses (-32602), saying what was wrong. */
class InvalidParamsError extends Error {
  readonly code = JsonRpcCode.InvalidParams;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const LISTS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

type SchemaCheck = (message: JsonObject) => string | undefined;
let schemaChecks: Promise<Map<string, SchemaCheck>> | undefined;

/**
 * Refuses a request the SDK's schema for its method would refuse. The stdio gateway's hot methods (the
 * lists, `tools/call`, `logging/setLevel`) are checked here by hand; the others by the areas' own schemas
 * (the SDK's, which load zod), imported on the first such request.
 */
export async function checkParams(method: string, message: JsonObject): Promise<void> {
  const params = message.params;
  if (params !== undefined && !isJsonObject(params)) fail(method, 'params must be an object');
  const p = (params ?? {}) as JsonObject;
  if (p._meta !== undefined) {
    if (!isJsonObject(p._meta)) fail(method, 'params._meta must be an object');
    const token = p._meta.progressToken;
    if (token !== undefined && typeof token !== 'string' && typeof token !== 'number')
      fail(method, '_meta.progressToken must be a string or a number');
  }
  if (LISTS.has(method)) {
    if (p.cursor !== undefined && typeof p.cursor !== 'string') fail(method, 'cursor must be a string');
    return;
  }
  if (method === 'tools/call') {
    if (typeof p.name !== 'string') fail(method, 'name must be a string (the tool to call)');
    if (p.arguments !== undefined && !isJsonObject(p.arguments)) fail(method, 'arguments must be an object');
    return;
  }
  if (method === 'logging/setLevel') {
    if (typeof p.level !== 'string' || !LOG_LEVELS.includes(p.level)) fail(method, `level must be one of ${LOG_LEVELS.join(', ')}`);
    return;
  }
  const check = (await loadSchemaChecks()).get(method);
  const problem = check?.(message);
  if (problem !== undefined) fail(method, problem);
}

function fail(method: string, what: string): never {
  throw new InvalidParamsError(`Invalid params for ${method}: ${what}`);
}

function loadSchemaChecks(): Promise<Map<string, SchemaCheck>> {
  schemaChecks ??= import('../contract/areas/all-areas.js').then(async ({ AREAS }) => {
    const { isAbsent } = await import('../contract/areas/area.js');
    const checks = new Map<string, SchemaCheck>();
    for (const m of AREAS.flatMap((a) => a.methods)) {
      if (isAbsent(m.gateway)) continue;
      const schema = m.gateway.schema as {
        safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
      };
      checks.set(m.name, (message) => {
        const r = schema.safeParse(message);
        if (r.success) return undefined;
        return (r.error?.issues ?? []).map((i) => `${i.path.map(String).join('.') || '(request)'}: ${i.message}`).join('; ');
      });
    }
    return checks;
  });
  return schemaChecks;
}

import type { JsonObject } from '../../../shared/json.js';
import type { ToolMeta } from '../../../contract/model/spec.js';
import { A2C_TOOL_META, MCP_TOOL_ANNOTATION, type AttributeValue, type SMCPTool } from '../../../contract/smcp/types.js';
import { pythonJsonDumps } from './python-json.js';

type Scalar = string | number | boolean;

/** The fields of MCP ToolAnnotations in pydantic's order: model_dump writes each, null when unset. */
const ANNOTATION_FIELDS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/**
 * The merged tool metadata as the Python Computer dumps its ToolMeta: a shallow merge where the
 * per-tool entry wins field by field; undefined when neither exists.
 */
export function mergedToolMeta(defaults: ToolMeta | undefined, specific: ToolMeta | undefined): ToolMeta | undefined {
  if (!defaults && !specific) return undefined;
  const pick = (m?: ToolMeta): ToolMeta => Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => v !== undefined));
  return { ...pick(defaults), ...pick(specific) };
}

/** ToolMeta in wire form: every field of the Python model, null where unset. */
function toolMetaJson(m: ToolMeta): string {
  return pythonJsonDumps({ auto_apply: m.autoApply ?? null, alias: m.alias ?? null, tags: m.tags ?? null, ret_object_mapper: null });
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** OpenTelemetry AttributeValue: a scalar or a list of scalars of one type. */
function isAttributeValue(v: unknown): v is AttributeValue {
  if (v === null) return false;
  if (isScalar(v)) return true;
  if (!Array.isArray(v) || !v.every(isScalar)) return false;
  return new Set(v.map((x) => typeof x)).size <= 1;
}

function annotationJson(a: JsonObject): string {
  const ordered: Record<string, unknown> = {};
  for (const f of ANNOTATION_FIELDS) ordered[f] = a[f] ?? null;
  for (const [k, v] of Object.entries(a)) if (!(k in ordered)) ordered[k] = v;
  return pythonJsonDumps(ordered);
}

/**
 * An MCP tool of the caller's view as an SMCPTool. `definition` is the MCP Tool object (its name is
 * the exposed one, which is what `client:tool_call` takes). The server's own `_meta` entries are kept
 * when they are attribute values and JSON-encoded otherwise; ours go under two namespaced keys.
 */
export function toSmcpTool(definition: JsonObject, meta: ToolMeta | undefined): SMCPTool {
  const out: Record<string, AttributeValue> = {};
  const own = definition._meta;
  if (own && typeof own === 'object' && !Array.isArray(own)) {
    for (const [k, v] of Object.entries(own)) out[k] = isAttributeValue(v) ? v : pythonJsonDumps(v);
  }
  if (meta) out[A2C_TOOL_META] = toolMetaJson(meta);
  const ann = definition.annotations;
  if (ann && typeof ann === 'object' && !Array.isArray(ann)) out[MCP_TOOL_ANNOTATION] = annotationJson(ann as JsonObject);
  const description = typeof definition.description === 'string' && definition.description !== '' ? definition.description : 'None';
  const output = definition.outputSchema;
  return {
    name: String(definition.name),
    description,
    params_schema: (definition.inputSchema as JsonObject | undefined) ?? { type: 'object' },
    return_schema: output && typeof output === 'object' ? (output as JsonObject) : null,
    meta: out,
  };
}

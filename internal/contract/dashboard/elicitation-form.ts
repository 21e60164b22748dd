import { isJsonObject, type JsonObject } from '../../shared/json.js';

/**
 * An elicitation's `requestedSchema` read as form fields, and the check of what a person filled in.
 * The page builds its form from it and checks before sending; the core checks the answer again (a page
 * is a client like any other), so a downstream server only ever gets content its schema allows.
 */

type ElicitKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

interface ElicitOption {
  value: string;
  label: string;
}

export interface ElicitField {
  name: string;
  /** `title`, else the property name. */
  label: string;
  description?: string;
  required: boolean;
  kind: ElicitKind;
  /** enum: the allowed values, with their titles (`oneOf` const/title, or legacy `enumNames`). */
  options?: ElicitOption[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** string: email, uri, date or date-time. */
  format?: string;
  default?: string | number | boolean;
}

/** The fields of a requestedSchema (flat: primitive properties only, as MCP allows). */
export function elicitFields(requestedSchema: unknown): ElicitField[] {
  const schema = isJsonObject(requestedSchema) ? requestedSchema : {};
  const props = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  return Object.entries(props).map(([name, raw]) => fieldOf(name, isJsonObject(raw) ? raw : {}, required.has(name)));
}

function fieldOf(name: string, s: JsonObject, required: boolean): ElicitField {
  const options = optionsOf(s);
  const type = typeof s.type === 'string' ? s.type : 'string';
  const kind: ElicitKind = options ? 'enum' : type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
  const f: ElicitField = { name, label: typeof s.title === 'string' && s.title ? s.title : name, required, kind };
  if (typeof s.description === 'string') f.description = s.description;
  if (options) f.options = options;
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) if (typeof s[k] === 'number') f[k] = s[k];
  if (typeof s.format === 'string') f.format = s.format;
  if (typeof s.default === 'string' || typeof s.default === 'number' || typeof s.default === 'boolean') f.default = s.default;
  return f;
}

function optionsOf(s: JsonObject): ElicitOption[] | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    return s.enum.map((v, i) => ({ value: String(v), label: typeof names[i] === 'string' ? names[i] : String(v) }));
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0 && s.oneOf.every((o) => isJsonObject(o) && typeof o.const === 'string')) {
    return (s.oneOf as JsonObject[]).map((o) => ({
      value: String(o.const),
      label: typeof o.title === 'string' ? o.title : String(o.const),
    }));
  }
  return undefined;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

/**
 * What is wrong with `content` for these fields, one line per problem naming the field (empty: fine).
 * Content holds only the schema's fields, each of its type and within its bounds; required ones present.
 */
export function elicitProblems(fields: readonly ElicitField[], content: unknown): string[] {
  if (!isJsonObject(content)) return ['the content must be a JSON object of the form fields'];
  const byName = new Map(fields.map((f) => [f.name, f]));
  const problems: string[] = [];
  for (const key of Object.keys(content)) {
    if (!byName.has(key))
      problems.push(`"${key}" is not a field of this request (fields: ${fields.map((f) => f.name).join(', ') || 'none'})`);
  }
  for (const f of fields) {
    const v = content[f.name];
    if (v === undefined) {
      if (f.required) problems.push(`"${f.label}" is required`);
      continue;
    }
    const why = valueProblem(f, v);
    if (why) problems.push(`"${f.label}" ${why}`);
  }
  return problems;
}

function valueProblem(f: ElicitField, v: unknown): string | undefined {
  switch (f.kind) {
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof v === 'string' && f.options?.some((o) => o.value === v)
        ? undefined
        : `must be one of ${(f.options ?? []).map((o) => o.value).join(', ')}`;
    case 'number':
    case 'integer':
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number`;
      if (f.kind === 'integer' && !Number.isInteger(v)) return 'must be a whole number';
      if (f.minimum !== undefined && v < f.minimum) return `must be at least ${f.minimum}`;
      if (f.maximum !== undefined && v > f.maximum) return `must be at most ${f.maximum}`;
      return undefined;
    case 'string':
      if (typeof v !== 'string') return 'must be text';
      if (f.minLength !== undefined && v.length < f.minLength) return `must have at least ${f.minLength} characters`;
      if (f.maxLength !== undefined && v.length > f.maxLength) return `must have at most ${f.maxLength} characters`;
      if (f.format && FORMATS[f.format] && !FORMATS[f.format]?.test(v))
        return `must be ${f.format === 'uri' ? 'a URI' : `a valid ${f.format}`}`;
      return undefined;
  }
}

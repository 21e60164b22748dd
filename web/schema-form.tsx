import { useState } from 'preact/hooks';

import type { JsonObject, JsonValue } from '../internal/shared/json.js';

type Json = Record<string, unknown>;

interface Field {
  name: string;
  schema: Json;
  required: boolean;
}

function fieldsOf(schema: Json | undefined): Field[] {
  const props = (schema?.properties ?? {}) as Record<string, Json>;
  const req = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, s]) => ({ name, schema: s ?? {}, required: req.has(name) }));
}

/** The free-form JSON field, for schemas that declare no properties but accept any. */
const FREE = '$arguments';

function acceptsAny(schema: Json | undefined): boolean {
  return fieldsOf(schema).length === 0 && schema?.additionalProperties !== false;
}

function kindOf(s: Json): string {
  if (Array.isArray(s.enum)) return 'enum';
  const t = Array.isArray(s.type) ? (s.type as string[]).find((x) => x !== 'null') : s.type;
  return typeof t === 'string' ? t : 'json';
}

/** Turns the form's strings into the arguments the schema asks for; errors name the field. */
export function argsFrom(schema: Json | undefined, raw: Record<string, string>): JsonObject {
  const out: JsonObject = {};
  if (raw[FREE]) {
    let extra: unknown;
    try {
      extra = JSON.parse(raw[FREE]);
    } catch {
      throw new Error('"arguments" must be a JSON object');
    }
    if (extra === null || typeof extra !== 'object' || Array.isArray(extra)) throw new Error('"arguments" must be a JSON object');
    Object.assign(out, extra as JsonObject); // JSON.parse's object: JSON by construction
  }
  for (const f of fieldsOf(schema)) {
    const v = raw[f.name];
    if (v === undefined || v === '') {
      if (f.required && kindOf(f.schema) !== 'boolean') throw new Error(`"${f.name}" is required`);
      if (kindOf(f.schema) === 'boolean' && v !== undefined) out[f.name] = false;
      continue;
    }
    const k = kindOf(f.schema);
    if (k === 'number' || k === 'integer') {
      const n = Number(v);
      if (!Number.isFinite(n) || (k === 'integer' && !Number.isInteger(n)))
        throw new Error(`"${f.name}" must be ${k === 'integer' ? 'an integer' : 'a number'}`);
      out[f.name] = n;
    } else if (k === 'boolean') out[f.name] = v === 'true';
    else if (k === 'object' || k === 'array' || k === 'json') {
      try {
        out[f.name] = JSON.parse(v) as JsonValue;
      } catch {
        throw new Error(`"${f.name}" must be JSON (${k})`);
      }
    } else out[f.name] = v;
  }
  return out;
}

interface Props {
  id: string;
  schema: Json | undefined;
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
  /** Suggestions per field (completion/complete). */
  suggest?: (field: string, value: string) => void;
  suggestions?: Record<string, string[]>;
}

/** One labelled input per property of an input schema. */
export function SchemaForm(p: Props) {
  const fields = fieldsOf(p.schema);
  if (acceptsAny(p.schema)) {
    const id = `${p.id}-arguments`;
    return (
      <div class="field">
        <label for={id}>
          arguments <span class="muted">JSON object (the schema accepts any)</span>
        </label>
        <textarea
          id={id}
          rows={3}
          value={p.values[FREE] ?? ''}
          onInput={(e) => p.onChange({ ...p.values, [FREE]: (e.target as HTMLTextAreaElement).value })}
        />
      </div>
    );
  }
  if (fields.length === 0) return <p class="muted">no arguments</p>;
  const set = (name: string, v: string) => {
    p.onChange({ ...p.values, [name]: v });
    p.suggest?.(name, v);
  };
  return (
    <div class="form">
      {fields.map((f) => {
        const id = `${p.id}-${f.name}`;
        const k = kindOf(f.schema);
        const label = (
          <label for={id}>
            {f.name}
            {f.required && <span class="req"> *</span>} <span class="muted">{k}</span>
            {typeof f.schema.description === 'string' && <span class="muted"> — {f.schema.description}</span>}
          </label>
        );
        let input;
        if (k === 'enum')
          input = (
            <select id={id} value={p.values[f.name] ?? ''} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
              <option value="">—</option>
              {(f.schema.enum as unknown[]).map((o) => (
                <option value={String(o)}>{String(o)}</option>
              ))}
            </select>
          );
        else if (k === 'boolean')
          input = (
            <select id={id} value={p.values[f.name] ?? ''} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
              <option value="">—</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          );
        else if (k === 'object' || k === 'array' || k === 'json')
          input = (
            <textarea
              id={id}
              rows={3}
              value={p.values[f.name] ?? ''}
              onInput={(e) => set(f.name, (e.target as HTMLTextAreaElement).value)}
            />
          );
        else
          input = (
            <>
              <input
                id={id}
                type={k === 'number' || k === 'integer' ? 'number' : 'text'}
                list={`${id}-options`}
                value={p.values[f.name] ?? ''}
                onInput={(e) => set(f.name, (e.target as HTMLInputElement).value)}
              />
              <datalist id={`${id}-options`}>
                {(p.suggestions?.[f.name] ?? []).map((s) => (
                  <option value={s} />
                ))}
              </datalist>
            </>
          );
        return (
          <div class="field">
            {label}
            {input}
          </div>
        );
      })}
    </div>
  );
}

/** Form state with defaults from the schema. */
export function useFormValues(schema: Json | undefined): [Record<string, string>, (v: Record<string, string>) => void] {
  const init: Record<string, string> = {};
  for (const f of fieldsOf(schema))
    if (f.schema.default !== undefined)
      init[f.name] = typeof f.schema.default === 'string' ? f.schema.default : JSON.stringify(f.schema.default);
  return useState(init);
}

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { pathToFileURL } from 'node:url';
import { McpdError } from '../shared/errors.js';
import { isJsonObject, type JsonObject } from '../shared/json.js';

/**
 * How `mcpdctl call` answers the input a server asks for during a call: elicitation, sampling, roots (a
 * 2025 server's requests, or a 2026 server's InputRequiredResult, which the core turns into the same
 * requests). Returns the result the server gets.
 */
export type InputAnswerer = (method: string, params: JsonObject) => Promise<JsonObject>;

const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/**
 * Answers from an `--input-responses` file: a JSON object keyed by method, each value the result to give
 * (every request of that method gets it) or an array of results given in turn.
 */
export function fileAnswerer(path: string): InputAnswerer {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `--input-responses ${path}: cannot read it as JSON (${(e as Error).message})`);
  }
  if (!isJsonObject(doc)) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--input-responses ${path}: must be a JSON object keyed by method (${INPUT_METHODS.join(', ')})`,
    );
  }
  const unknown = Object.keys(doc).filter((k) => !(INPUT_METHODS as readonly string[]).includes(k));
  if (unknown.length) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--input-responses ${path}: unknown key(s) ${unknown.join(', ')}; the keys are ${INPUT_METHODS.join(', ')}`,
    );
  }
  const used = new Map<string, number>();
  return async (method) => {
    const entry = doc[method];
    const n = used.get(method) ?? 0;
    used.set(method, n + 1);
    const answer = Array.isArray(entry) ? entry[n] : entry;
    if (!isJsonObject(answer)) {
      const why = Array.isArray(entry)
        ? `has ${entry.length} answer(s) for "${method}" and the server asked a ${n + 1}. time`
        : `has no "${method}" answer`;
      throw new McpdError('INVALID_ARGUMENT', `--input-responses ${path} ${why}; add one (a JSON object: the ${method} result)`);
    }
    return answer;
  };
}

/** Asks on the terminal: the server's message and each field of an elicitation, a sampling reply, roots. */
export function terminalAnswerer(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): InputAnswerer {
  const rl = createInterface({ input, output, terminal: false });
  const ask = async (q: string) => (await rl.question(q)).trim();
  return async (method, params): Promise<JsonObject> => {
    if (method === 'elicitation/create') return elicit(params, ask, output);
    if (method === 'sampling/createMessage') {
      output.write(`\nthe server asks for a model reply (sampling) to:\n${samplingText(params)}\n`);
      const text = await ask('reply> ');
      return { role: 'assistant', model: 'mcpdctl-operator', content: { type: 'text', text } };
    }
    const cwd = pathToFileURL(process.cwd()).href;
    const line = await ask(`\nthe server asks for the client's roots; file URIs separated by spaces [${cwd}]> `);
    return { roots: (line ? line.split(/\s+/) : [cwd]).map((uri) => ({ uri })) };
  };
}

type Field = { type?: string; title?: string; description?: string; enum?: unknown[]; default?: unknown };

async function elicit(params: JsonObject, ask: (q: string) => Promise<string>, output: NodeJS.WritableStream): Promise<JsonObject> {
  output.write(`\nthe server asks: ${String(params.message ?? '')}\n`);
  if (params.mode === 'url') {
    output.write(`open ${String(params.url ?? '')}\n`);
    return (await ask('done? [Y/n] ')).toLowerCase().startsWith('n') ? { action: 'decline' } : { action: 'accept' };
  }
  const schema = isJsonObject(params.requestedSchema) ? params.requestedSchema : {};
  const props = (isJsonObject(schema.properties) ? schema.properties : {}) as Record<string, Field>;
  const content: JsonObject = {};
  for (const [name, f] of Object.entries(props)) {
    const hint = f.enum ? ` (${f.enum.join('|')})` : f.type === 'boolean' ? ' (y/n)' : '';
    const dflt = f.default === undefined ? '' : ` [${String(f.default)}]`;
    const raw = await ask(`${f.title ?? name}${f.description ? ` - ${f.description}` : ''}${hint}${dflt}: `);
    if (raw === '' && f.default === undefined) continue;
    content[name] = fieldValue(raw === '' ? String(f.default) : raw, f);
  }
  const send = await ask('send these answers? [Y/n, c = cancel] ');
  if (send.toLowerCase().startsWith('c')) return { action: 'cancel' };
  if (send.toLowerCase().startsWith('n')) return { action: 'decline' };
  return { action: 'accept', content };
}

function fieldValue(raw: string, f: Field): string | number | boolean {
  if (f.type === 'boolean') return /^(y|yes|true|1)$/i.test(raw);
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(raw);
    if (Number.isNaN(n)) throw new McpdError('INVALID_ARGUMENT', `"${raw}" is not a number`);
    return n;
  }
  return raw;
}

function samplingText(params: JsonObject): string {
  const messages = Array.isArray(params.messages) ? params.messages : [];
  return messages
    .map((m) => {
      const msg = isJsonObject(m) ? m : {};
      const c = isJsonObject(msg.content) ? msg.content : {};
      return `  ${String(msg.role ?? '?')}: ${typeof c.text === 'string' ? c.text : `[${String(c.type ?? 'content')}]`}`;
    })
    .join('\n');
}

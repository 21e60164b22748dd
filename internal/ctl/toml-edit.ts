import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';
import { McpdError } from '../shared/errors.js';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed document, or a refusal that names the file and leaves it alone. */
export function parseTomlConfig(path: string, text: string | undefined): Json {
  if (text === undefined || text.trim() === '') return {};
  try {
    return parse(text) as Json;
  } catch (e) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `${path} is not valid TOML (${(e as Error).message.split('\n')[0]}); fix it first, nothing was changed`,
    );
  }
}

/** smol-toml's tables have no prototype and its dates a class of their own: compared as plain JSON values. */
function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/** `[table.NAME]` as TOML spells it: bare when it can be, quoted otherwise. */
function keyPattern(name: string): string {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return /^[A-Za-z0-9_-]+$/.test(name) ? `(?:${esc}|"${esc}"|'${esc}')` : `(?:"${esc}"|'${esc}')`;
}

const HEADER = /^\s*\[/;
const BLANK_OR_COMMENT = /^\s*(#.*)?$/;

/**
 * Line ranges [start, end) of `[table.NAME]` and its sub-tables (`[table.NAME.env]`). A range ends at its
 * last line of content: comments and blank lines before the next header belong to what follows.
 */
function sections(lines: string[], table: string, name: string): [number, number][] {
  const own = new RegExp(`^\\s*\\[\\s*${table}\\s*\\.\\s*${keyPattern(name)}\\s*(\\.[^\\]]*)?\\]\\s*(#.*)?$`);
  const out: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!own.test(lines[i] ?? '')) continue;
    let next = i + 1;
    while (next < lines.length && !HEADER.test(lines[next] ?? '')) next++;
    let end = next;
    while (end > i + 1 && BLANK_OR_COMMENT.test(lines[end - 1] ?? '')) end--;
    out.push([i, end]);
    i = next - 1;
  }
  return out;
}

/** The TOML text of one `[table.NAME]` (and its sub-tables), without a trailing blank line. */
export function tomlBlock(table: string, name: string, value: unknown): string {
  return stringify({ [table]: { [name]: value } }).trimEnd();
}

/**
 * Sets (or with undefined, removes) `[table.NAME]` entries by editing only their lines: comments, order and
 * layout of the rest of the file stay (smol-toml parses and writes TOML but keeps no comments, so the file is
 * not written back whole). A replaced table keeps its place; a new one goes at the end. The result is parsed
 * again and must equal the old document with exactly these changes; when the entry is written some other way
 * (dotted keys, an inline table) that check fails and the file is left alone with what to add by hand.
 */
export function editTomlTables(path: string, text: string | undefined, table: string, changes: [string, unknown][]): string {
  // Parsed afresh rather than cloned: TOML dates are objects of smol-toml's own class, which a clone loses.
  const expected = parseTomlConfig(path, text);
  let lines = (text ?? '').split('\n');
  for (const [name, value] of changes) {
    const t = isObj(expected[table]) ? expected[table] : (expected[table] = {});
    if (value === undefined) delete t[name];
    else t[name] = value;
    const found = sections(lines, table, name);
    const at = found[0]?.[0];
    for (const [s, e] of [...found].reverse()) lines.splice(s, e - s);
    if (value === undefined) continue;
    const block = tomlBlock(table, name, value).split('\n');
    if (at !== undefined) lines.splice(at, 0, ...block);
    else {
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      lines = [...lines, ...(lines.length ? [''] : []), ...block];
    }
  }
  const out = `${lines.join('\n').replace(/\n*$/, '')}\n`;
  let after: unknown;
  try {
    after = parse(out);
  } catch {
    // Reported below with the same advice as a mismatch: the edit would have broken the file.
    after = undefined;
  }
  if (!isDeepStrictEqual(plain(after), plain(expected))) {
    const set = changes.filter(([, v]) => v !== undefined).map(([n, v]) => tomlBlock(table, n, v));
    throw new McpdError(
      'FAILED_PRECONDITION',
      `${path}: ${changes.map(([n]) => `[${table}.${n}]`).join(', ')} is not written as its own table there, so it cannot be edited without touching the rest; nothing was changed. ` +
        `Edit it by hand${set.length ? `; add:\n${set.join('\n\n')}` : ''}`,
    );
  }
  return out;
}

import { shorten, type DraftElement, type DraftPage } from '../domain/document.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { chunk, ParseError, utf8, type DocParser } from './types.js';

export const JSON_ROWS_PER_PAGE = 50;
const JSON_KEYS_PER_PAGE = 50;
const JSON_ITEMS_PER_PAGE = 100;

/**
 * JSON mapping:
 * - array of objects (records) → table pages of JSON_ROWS_PER_PAGE rows, columns = keys in first-seen order;
 * - array of scalars → list pages of JSON_ITEMS_PER_PAGE items;
 * - object → for each top-level key a heading (level 2) and the value's element
 *   (scalar → text, scalar array → list, record array → table, anything else → code with the
 *   pretty-printed JSON), JSON_KEYS_PER_PAGE keys a page;
 * - scalar → one text element.
 * title/name, description/summary and keywords/tags at the top of an object become metadata.
 */
export const parseJsonDocument: DocParser = async (bytes, stem) => {
  let root: JsonValue;
  try {
    root = JSON.parse(utf8(bytes)) as JsonValue;
  } catch (e) {
    throw new ParseError(`invalid JSON: ${(e as Error).message}; fix the syntax or rename the file`);
  }
  const obj = isJsonObject(root) ? root : undefined;
  const title = pickStr(obj, 'title', 'name') ?? stem;
  return {
    title,
    keywords: pickStrList(obj, 'keywords', 'tags'),
    summary: pickStr(obj, 'description', 'summary') ?? describe(root),
    pages: pagesOf(root, title),
  };
};

function pagesOf(root: JsonValue, title: string): DraftPage[] {
  if (Array.isArray(root) && root.length > 0 && root.every(isJsonObject)) {
    return chunk(root, JSON_ROWS_PER_PAGE).map((part, n) => ({
      title: `Records ${n * JSON_ROWS_PER_PAGE + 1}–${n * JSON_ROWS_PER_PAGE + part.length}`,
      elements: [tableOf(part)],
    }));
  }
  if (Array.isArray(root)) {
    return chunk(root, JSON_ITEMS_PER_PAGE).map((part, n) => ({
      title: `Items ${n * JSON_ITEMS_PER_PAGE + 1}–${n * JSON_ITEMS_PER_PAGE + part.length}`,
      elements: part.length ? [valueElement(part)] : [],
    }));
  }
  if (isJsonObject(root)) {
    const keys = Object.keys(root);
    return chunk(keys, JSON_KEYS_PER_PAGE).map((part) => ({
      title: part.length ? `${part[0]} … ${part[part.length - 1]}` : title,
      elements: part.flatMap((k): DraftElement[] => [
        { category: 'heading', summary: k, content: { text: k, level: 2 } },
        valueElement(root[k] ?? null), // k is one of root's own keys; a JSON value is never undefined
      ]),
    }));
  }
  return [{ title, elements: [valueElement(root)] }];
}

function valueElement(v: JsonValue): DraftElement {
  if (v === null || typeof v !== 'object') {
    const text = v === null ? 'null' : String(v);
    return { category: 'text', summary: shorten(text), content: { text }, metadata: { json_type: v === null ? 'null' : typeof v } };
  }
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
    const items = v.map((x) => (x === null ? 'null' : String(x)));
    return { category: 'list', summary: shorten(`${items.length} item(s): ${items.join('; ')}`), content: { ordered: true, items } };
  }
  if (Array.isArray(v) && v.length > 0 && v.every(isJsonObject)) return tableOf(v);
  const code = JSON.stringify(v, null, 2);
  return { category: 'code', summary: shorten(code), content: { code, language: 'json' } };
}

function tableOf(records: readonly JsonObject[]): DraftElement {
  const headers: string[] = [];
  for (const r of records) for (const k of Object.keys(r)) if (!headers.includes(k)) headers.push(k);
  const rows = records.map((r) => headers.map((h) => cellText(r[h])));
  return { category: 'table', summary: `${rows.length} record(s): ${headers.join(', ')}`, content: { headers, rows } };
}

function cellText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function describe(root: JsonValue): string {
  if (Array.isArray(root)) return `JSON array of ${root.length} item(s)`;
  if (isJsonObject(root)) return shorten(`JSON object with keys: ${Object.keys(root).join(', ')}`, 200);
  return `JSON ${root === null ? 'null' : typeof root}`;
}

function pickStr(o: JsonObject | undefined, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o?.[k] === 'string' && o[k] !== '') return o[k] as string;
  return undefined;
}

function pickStrList(o: JsonObject | undefined, ...keys: string[]): string[] | undefined {
  for (const k of keys) {
    const v = o?.[k];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  }
  return undefined;
}

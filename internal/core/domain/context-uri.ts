/**
 * The core's resource URIs for the context channels (what MCP clients send through their gateway):
 *   mcpd://desktop{?size,window,format}             the caller's organized desktop
 *   mcpd://finder{?keywords,file_type,offset,limit}  one page of the caller's finder
 * Parsed here into the params of the session methods (mcpd/desktop/read, mcpd/finder/query).
 */
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';

export const DESKTOP_URI = 'mcpd://desktop';
export const FINDER_URI = 'mcpd://finder';

export type ContextKind = 'desktop' | 'finder';

export interface ContextUri {
  kind: ContextKind;
  /** Params for the session method. */
  params: JsonObject;
  /** desktop only: `text` (default) or `json`. */
  format: 'text' | 'json';
}

const KEYS: Record<ContextKind, readonly string[]> = {
  desktop: ['size', 'window', 'format'],
  finder: ['keywords', 'file_type', 'offset', 'limit'],
};

/** The kind of a context URI, or undefined for any other URI. */
export function contextKindOf(uri: string): ContextKind | undefined {
  const [, kind] = /^mcpd:\/\/(desktop|finder)\/?(?:\?.*)?$/i.exec(uri) ?? [];
  return kind === undefined ? undefined : (kind.toLowerCase() as ContextKind);
}

function bad(uri: string, problem: string, hint: string): McpdError {
  return new McpdError('INVALID_ARGUMENT', `${uri}: ${problem}; ${hint}`, { data: { uri } });
}

function integer(uri: string, key: string, value: string): number {
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw bad(uri, `${key}=${JSON.stringify(value)} is not an integer`, `write ${key} as plain digits, e.g. ${key}=10`);
  return Number(value);
}

/** Parses a context URI; unknown or repeated keys and malformed values are errors naming the key. */
export function parseContextUri(uri: string): ContextUri {
  const kind = contextKindOf(uri);
  if (!kind) throw bad(uri, 'not a context URI', `use ${DESKTOP_URI} or ${FINDER_URI}`);
  const q = uri.indexOf('?');
  const search = new URLSearchParams(q < 0 ? '' : uri.slice(q + 1).replace(/\+/g, '%2B'));
  const params: JsonObject = {};
  let format: 'text' | 'json' = 'text';
  const seen = new Set<string>();
  for (const [key, value] of search) {
    if (!KEYS[kind].includes(key)) throw bad(uri, `unknown query key "${key}"`, `mcpd://${kind} accepts ${KEYS[kind].join(', ')}`);
    if (seen.has(key) && key !== 'keywords') throw bad(uri, `"${key}" is given twice`, 'give it once');
    seen.add(key);
    switch (key) {
      case 'size':
      case 'offset':
      case 'limit':
        params[key] = integer(uri, key, value);
        break;
      case 'window':
      case 'file_type':
        if (value !== '') params[key] = value;
        break;
      case 'keywords': {
        const prev = (params.keywords as string[] | undefined) ?? [];
        params.keywords = [...prev, ...value.split(',').filter((k) => k.trim() !== '')];
        break;
      }
      case 'format':
        if (value !== 'text' && value !== 'json') throw bad(uri, `format=${JSON.stringify(value)}`, 'use format=text or format=json');
        format = value;
        break;
    }
  }
  return { kind, params, format };
}

/** The desktop as one text: each window under a numbered header line, in order. */
export function renderDesktopText(windows: readonly string[]): string {
  return windows.map((w, i) => `----- window ${i + 1} of ${windows.length} -----\n${w}`).join('\n\n');
}

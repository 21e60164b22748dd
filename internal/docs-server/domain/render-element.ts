import type { JsonObject, JsonValue } from '../../shared/json.js';

/** Markdown and plain-text renderings of one element, per the rules in spec/README.md. */

const str = (v: JsonValue | undefined): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const strs = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.map((x) => str(x)) : []);
const rows = (v: JsonValue | undefined): string[][] => (Array.isArray(v) ? v.map((r) => strs(r)) : []);

export interface RenderableElement {
  category: string;
  summary?: string;
  content: JsonObject;
}

export function elementToMarkdown(e: RenderableElement): string {
  const c = e.content;
  switch (e.category) {
    case 'heading':
      return `${'#'.repeat(clampLevel(c.level))} ${str(c.text)}`;
    case 'text':
      return str(c.text);
    case 'table':
      return gfmTable(strs(c.headers), rows(c.rows));
    case 'list':
      return strs(c.items)
        .map((it, i) => (c.ordered === true ? `${i + 1}. ${it}` : `- ${it}`))
        .join('\n');
    case 'code':
      return fenced(str(c.code), str(c.language));
    case 'chart':
      return `[图表: ${str(c.title)}] ${str(c.data_summary)}`;
    case 'image':
      return `![${str(c.alt)}](${str(c.url)})`;
    case 'link':
      return `[${str(c.text)}](${str(c.url)})`;
    case 'formula':
      return `$ ${str(c.expression)} $`;
    default:
      return `[${e.category}: ${e.summary ?? ''}]`;
  }
}

export function elementToText(e: RenderableElement): string {
  const c = e.content;
  switch (e.category) {
    case 'heading':
    case 'text':
      return str(c.text);
    case 'table':
      return [strs(c.headers), ...rows(c.rows)]
        .filter((r) => r.length > 0)
        .map((r) => r.join('\t'))
        .join('\n');
    case 'list':
      return strs(c.items)
        .map((it, i) => (c.ordered === true ? `${i + 1}. ${it}` : `- ${it}`))
        .join('\n');
    case 'code':
      return str(c.code);
    case 'chart':
      return `${str(c.title)}: ${str(c.data_summary)}`;
    case 'image':
      return `${str(c.alt)} (${str(c.url)})`;
    case 'link':
      return `${str(c.text)} (${str(c.url)})`;
    case 'formula':
      return str(c.expression);
    default:
      return `[${e.category}: ${e.summary ?? ''}]`;
  }
}

function clampLevel(v: JsonValue | undefined): number {
  return typeof v === 'number' && Number.isInteger(v) ? Math.min(6, Math.max(1, v)) : 1;
}

function cell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function gfmTable(headers: string[], body: string[][]): string {
  const width = Math.max(headers.length, ...body.map((r) => r.length), 1);
  const pad = (r: string[]): string[] => Array.from({ length: width }, (_, i) => r[i] ?? '');
  const line = (r: string[]): string => `| ${pad(r).map(cell).join(' | ')} |`;
  return [line(headers), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...body.map(line)].join('\n');
}

/** The fence is longer than any backtick run inside the code so the block cannot end early. */
function fenced(code: string, language: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code}\n${fence}`;
}

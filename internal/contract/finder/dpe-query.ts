import { DPE_DEFAULTS, DPE_LIMIT_MAX, isElementCategory, type DpeDepth, type DpeFormat, type ElementCategory } from './types.js';
import { invalidUri, parseCanonicalInt, tryDecode, type DpeRule } from './dpe-uri-rules.js';

export interface DpeQuery {
  format: DpeFormat;
  depth: DpeDepth;
  offset: number;
  limit: number;
  /** Undefined = every category. Deduplicated, in first-seen order. */
  categories?: ElementCategory[];
}

const KNOWN_KEYS: Record<string, DpeRule> = { format: 4, depth: 5, offset: 6, limit: 7, categories: 8 };

/**
 * Splits and validates the query. Unknown keys are kept in `params` but not interpreted (forward
 * compatibility); a known key given twice is rejected because there is no right answer to pick.
 */
export function parseDpeQuery(raw: string, queryPart: string): { params: Record<string, string>; query: DpeQuery } {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of queryPart.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = tryDecode(eq < 0 ? pair : pair.slice(0, eq));
    const value = tryDecode(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      throw invalidUri(raw, 'syntax', `malformed percent-escape in query pair ${JSON.stringify(pair)}`, 'escape "%" as %25');
    }
    if (key in params) {
      const rule = KNOWN_KEYS[key];
      if (rule === undefined) continue;
      throw invalidUri(raw, rule, `query key "${key}" is given more than once`, `give "${key}" once`);
    }
    params[key] = value;
  }
  return { params, query: validateKnown(raw, params) };
}

function validateKnown(raw: string, p: Record<string, string>): DpeQuery {
  const q: DpeQuery = { ...DPE_DEFAULTS };
  if (p.format !== undefined) {
    if (p.format !== 'json' && p.format !== 'markdown' && p.format !== 'text') {
      throw invalidUri(raw, 4, `format=${JSON.stringify(p.format)}`, 'use format=json, format=markdown or format=text');
    }
    q.format = p.format;
  }
  if (p.depth !== undefined) {
    if (p.depth !== 'metadata' && p.depth !== 'pages') {
      throw invalidUri(raw, 5, `depth=${JSON.stringify(p.depth)}`, 'use depth=metadata or depth=pages');
    }
    q.depth = p.depth;
  }
  if (p.offset !== undefined) {
    const n = parseCanonicalInt(p.offset);
    if (n === undefined) {
      throw invalidUri(raw, 6, `offset=${JSON.stringify(p.offset)}`, 'use digits only without sign or leading zeros, e.g. offset=0');
    }
    q.offset = n;
  }
  if (p.limit !== undefined) {
    const n = parseCanonicalInt(p.limit);
    if (n === undefined || n < 1 || n > DPE_LIMIT_MAX) {
      throw invalidUri(
        raw,
        7,
        `limit=${JSON.stringify(p.limit)}`,
        `use an integer from 1 to ${DPE_LIMIT_MAX} without sign or leading zeros`,
      );
    }
    q.limit = n;
  }
  if (p.categories !== undefined) q.categories = parseCategories(raw, p.categories);
  return q;
}

function parseCategories(raw: string, value: string): ElementCategory[] {
  if (value === '') {
    throw invalidUri(raw, 8, 'categories is empty', 'omit categories to get every category, or name at least one (e.g. categories=table)');
  }
  const out: ElementCategory[] = [];
  for (const item of value.split(',')) {
    if (!isElementCategory(item)) {
      const what = item === '' ? 'an empty item' : `unknown category ${JSON.stringify(item)}`;
      throw invalidUri(raw, 8, `categories contains ${what}`, 'use names like text, heading, list, code, table, image, link (no spaces)', {
        category: item,
      });
    }
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

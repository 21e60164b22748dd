import { isScalar } from 'yaml';
import { DEFAULT_TOOL_SEARCH, type ToolSearchSettings } from '../contract/model/profile.js';
import { checkKeys, mapEntries, readBool, readNumber, readStringList } from './fields.js';
import type { Source, YNode } from './source.js';

export const TOOL_SEARCH_KEYS = ['enabled', 'pinned', 'maxResults'] as const;

/** `toolSearch: true`, or a mapping with enabled / pinned / maxResults; undefined = mode off. */
export function parseToolSearch(src: Source, node: YNode, field: string): ToolSearchSettings | undefined {
  if (isScalar(node) && typeof node.value === 'boolean') return node.value ? { ...DEFAULT_TOOL_SEARCH, pinned: [] } : undefined;
  const entries = mapEntries(src, node, field, 'true, false, or a mapping with enabled / pinned / maxResults');
  if (!entries) return undefined;
  checkKeys(src, entries, TOOL_SEARCH_KEYS, 'toolSearch');
  const out: ToolSearchSettings = { ...DEFAULT_TOOL_SEARCH, pinned: [] };
  let enabled = true;
  for (const e of entries) {
    if (e.key === 'enabled') enabled = readBool(src, e.value, e.field) ?? enabled;
    if (e.key === 'pinned') out.pinned = readStringList(src, e.value, e.field)?.map((s) => s.text) ?? [];
    if (e.key === 'maxResults') out.maxResults = readNumber(src, e.value, e.field, { integer: true, min: 1 }) ?? out.maxResults;
  }
  return enabled ? out : undefined;
}

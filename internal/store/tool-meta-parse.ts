import type { ToolMeta } from '../contract/model/spec.js';
import { checkKeys, mapEntries, readBool, readString, readStringList } from './fields.js';
import type { Source, YNode } from './source.js';

export const TOOL_META_KEYS = ['alias', 'tags', 'autoApply'] as const;

export function parseToolMeta(src: Source, node: YNode, field: string): ToolMeta | undefined {
  const entries = mapEntries(src, node, field, 'a mapping with alias / tags / autoApply');
  if (!entries) return undefined;
  checkKeys(src, entries, TOOL_META_KEYS, 'tool metadata');
  const meta: ToolMeta = {};
  for (const e of entries) {
    if (e.key === 'alias') {
      const v = readString(src, e.value, e.field, true);
      if (v !== undefined) meta.alias = v;
    } else if (e.key === 'tags') {
      const v = readStringList(src, e.value, e.field);
      if (v) meta.tags = v.map((t) => t.text);
    } else if (e.key === 'autoApply') {
      const v = readBool(src, e.value, e.field);
      if (v !== undefined) meta.autoApply = v;
    }
  }
  return meta;
}

export function parseToolMetaMap(src: Source, node: YNode, field: string): Record<string, ToolMeta> {
  const out: Record<string, ToolMeta> = {};
  for (const e of mapEntries(src, node, field, 'a mapping of tool names to metadata') ?? []) {
    const meta = parseToolMeta(src, e.value, e.field);
    if (meta) out[e.key] = meta;
  }
  return out;
}

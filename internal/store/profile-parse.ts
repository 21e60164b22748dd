import { isSeq } from 'yaml';
import { MIN_NAME_BUDGET } from '../contract/model/naming.js';
import { DEFAULT_NAMESPACE, type NamespacePolicy, type ToolSearchSettings } from '../contract/model/profile.js';
import { checkKeys, mapEntries, readBool, readEnum, readNumber, readString } from './fields.js';
import { parseInputs, type LocatedInput } from './inputs-parse.js';
import { parseServer } from './server-parse.js';
import { parseToolSearch } from './tool-search-parse.js';
import { deref, describeNode, isNull, join, report, whereOf, type Source, type YNode } from './source.js';
import type { RawServer } from './types.js';

export const PROFILE_KEYS = ['servers', 'inputs', 'namespace', 'toolSearch', 'sandbox'] as const;
export const NAMESPACE_KEYS = ['mode', 'separator', 'maxLength', 'reserve'] as const;

export interface ParsedProfile {
  servers: RawServer[];
  inputs: LocatedInput[];
  namespace: NamespacePolicy;
  toolSearch?: ToolSearchSettings;
}

function parseNamespace(src: Source, node: YNode): NamespacePolicy {
  const ns: NamespacePolicy = { ...DEFAULT_NAMESPACE };
  const entries = mapEntries(src, node, 'namespace', 'a mapping with mode / separator / maxLength / reserve');
  if (!entries) return ns;
  checkKeys(src, entries, NAMESPACE_KEYS, 'namespace');
  for (const e of entries) {
    if (e.key === 'mode') ns.mode = readEnum(src, e.value, e.field, ['prefix', 'never'] as const) ?? ns.mode;
    if (e.key === 'separator') ns.separator = readString(src, e.value, e.field, true) ?? ns.separator;
    if (e.key === 'maxLength') ns.maxLength = readNumber(src, e.value, e.field, { integer: true, min: 16 }) ?? ns.maxLength;
    if (e.key === 'reserve') ns.reserve = readNumber(src, e.value, e.field, { integer: true, min: 0 }) ?? ns.reserve;
  }
  const reserve = entries.find((e) => e.key === 'reserve');
  if (reserve && ns.maxLength - (ns.reserve ?? 0) < MIN_NAME_BUDGET) {
    report(
      src,
      reserve.value,
      reserve.field,
      `reserve ${ns.reserve} leaves ${ns.maxLength - (ns.reserve ?? 0)} of maxLength ${ns.maxLength} characters for names; at least ${MIN_NAME_BUDGET} are needed`,
      `lower reserve to at most ${ns.maxLength - MIN_NAME_BUDGET} or raise maxLength`,
    );
  }
  return ns;
}

function parseServers(src: Source, node: YNode): RawServer[] {
  if (isNull(node)) return [];
  if (!isSeq(node)) {
    report(src, node, 'servers', `must be a list of servers, got ${describeNode(node)}`, 'write each server as a "- name: …" item');
    return [];
  }
  const out: RawServer[] = [];
  const firstLine = new Map<string, number>();
  node.items.forEach((item, i) => {
    const raw = parseServer(src, deref(src, item), join('servers', i));
    if (!raw) return;
    const first = firstLine.get(raw.name);
    if (first !== undefined) {
      src.issues.push({
        file: src.file,
        line: raw.nameWhere.line,
        column: raw.nameWhere.column,
        field: raw.nameWhere.field,
        message: `duplicate server name "${raw.name}" (first used on line ${first})`,
        hint: 'server names must be unique within a profile; rename one of them',
      });
      return;
    }
    firstLine.set(raw.name, raw.nameWhere.line);
    out.push(raw);
  });
  return out;
}

/**
 * The profile's `sandbox: true`: every stdio server without a `sandbox:` key of its own runs sandboxed
 * with no grants and no network (what `mcpd init` writes); `sandbox: false` on a server opts it out.
 */
function sandboxByDefault(src: Source, node: YNode, servers: RawServer[]): void {
  if (readBool(src, node, 'sandbox') !== true) return;
  const where = whereOf(src, node, 'sandbox');
  for (const s of servers) if (s.transport === 'stdio' && s.sandbox === undefined) s.sandbox = { where, read: [], write: [], allow: [] };
}

/** Reads a whole profile file; problems accumulate in `src.issues`. */
export function parseProfile(src: Source): ParsedProfile {
  const root = src.doc.contents as YNode;
  const empty: ParsedProfile = { servers: [], inputs: [], namespace: { ...DEFAULT_NAMESPACE } };
  const entries = mapEntries(src, root, '', 'a mapping with servers / inputs / namespace / toolSearch / sandbox');
  if (!entries) return empty;
  checkKeys(src, entries, PROFILE_KEYS, 'a profile');
  const get = (k: string): YNode => entries.find((e) => e.key === k)?.value;
  const has = (k: string): boolean => entries.some((e) => e.key === k);
  const servers = parseServers(src, get('servers'));
  if (has('sandbox')) sandboxByDefault(src, get('sandbox'), servers);
  return {
    servers,
    inputs: parseInputs(src, get('inputs'), 'inputs'),
    namespace: has('namespace') ? parseNamespace(src, get('namespace')) : empty.namespace,
    toolSearch: has('toolSearch') ? parseToolSearch(src, get('toolSearch'), 'toolSearch') : undefined,
  };
}

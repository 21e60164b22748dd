import { isScalar } from 'yaml';
import { parseHostRule } from '../contract/model/sandbox.js';
import { checkKeys, mapEntries, readStringList } from './fields.js';
import { report, whereOf, type LocStr, type Source, type YNode } from './source.js';
import type { RawSandbox } from './types.js';

export const SANDBOX_KEYS = ['filesystem', 'network'] as const;
export const SANDBOX_FS_KEYS = ['read', 'write'] as const;
export const SANDBOX_NET_KEYS = ['allow'] as const;

/** A path grant: absolute, `~/…`, or relative to the store folder; placeholders are checked after expansion. */
function checkPath(src: Source, p: LocStr): boolean {
  if (p.text.trim() === '') {
    src.issues.push({
      file: src.file,
      line: p.where.line,
      column: p.where.column,
      field: p.where.field,
      message: 'a path grant must not be empty',
    });
    return false;
  }
  return true;
}

function readPaths(src: Source, node: YNode, field: string): LocStr[] {
  const list = readStringList(src, node, field);
  return (list ?? []).filter((p) => checkPath(src, p));
}

function readAllow(src: Source, node: YNode, field: string): LocStr[] {
  const list = readStringList(src, node, field) ?? [];
  return list.filter((h) => {
    if (h.text.includes('${')) return true;
    const rule = parseHostRule(h.text);
    if (!('error' in rule)) return true;
    const w = h.where;
    src.issues.push({
      file: src.file,
      line: w.line,
      column: w.column,
      field: w.field,
      message: rule.error,
      hint: 'write a host ("api.example.com"), host:port ("127.0.0.1:8080"), "*.example.com", or "*" for any host',
    });
    return false;
  });
}

/**
 * A server's `sandbox:` — `false` (explicitly none), `true` (no grants, no network) or a mapping of
 * `filesystem: {read, write}` and `network: {allow}`. undefined = the key is absent or unusable.
 */
export function parseSandbox(src: Source, node: YNode, field: string): RawSandbox | false | undefined {
  const where = whereOf(src, node, field);
  if (isScalar(node) && typeof node.value === 'boolean') return node.value ? { where, read: [], write: [], allow: [] } : false;
  const entries = mapEntries(src, node, field, 'true, false or a mapping (filesystem, network)');
  if (!entries) return undefined;
  checkKeys(src, entries, SANDBOX_KEYS, 'sandbox');
  const out: RawSandbox = { where, read: [], write: [], allow: [] };
  for (const e of entries) {
    const inner = mapEntries(src, e.value, e.field, e.key === 'filesystem' ? 'a mapping (read, write)' : 'a mapping (allow)');
    if (!inner) continue;
    checkKeys(src, inner, e.key === 'filesystem' ? SANDBOX_FS_KEYS : SANDBOX_NET_KEYS, `sandbox.${e.key}`);
    for (const g of inner) {
      if (e.key === 'filesystem' && g.key === 'read') out.read = readPaths(src, g.value, g.field);
      else if (e.key === 'filesystem' && g.key === 'write') out.write = readPaths(src, g.value, g.field);
      else if (e.key === 'network' && g.key === 'allow') out.allow = readAllow(src, g.value, g.field);
    }
  }
  return out;
}

/** Reports a sandbox on an HTTP server: mcpd does not run it, so it cannot confine it. */
export function reportRemoteSandbox(src: Source, node: YNode, field: string, transport: string): void {
  report(
    src,
    node,
    field,
    `"sandbox" applies to stdio servers; transport ${transport} connects to a server mcpd does not run`,
    'remove "sandbox"',
  );
}

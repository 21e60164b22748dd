import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_AUDIT, type AuditSettings } from '../contract/model/audit-settings.js';
import { checkKeys, mapEntries, readBool, readNumber, readString, type NumberRule } from './fields.js';
import type { Source, YNode } from './source.js';

export const AUDIT_KEYS = ['enabled', 'file', 'arguments', 'maxBytes', 'keep'] as const;

export const AUDIT_NUMBERS: Record<'maxBytes' | 'keep', NumberRule> = {
  // Below a few KiB a file would rotate every few calls.
  maxBytes: { integer: true, min: 4096 },
  keep: { integer: true, min: 1, max: 1000 },
};

/** runtime.yaml `audit:`; a relative `file` is taken from the store's folder. Problems are reported with their line. */
export function parseAudit(src: Source, node: YNode, field: string, storeDir: string): AuditSettings {
  const out: AuditSettings = { ...DEFAULT_AUDIT };
  const entries = mapEntries(src, node, field, 'a mapping (enabled, file, arguments, maxBytes, keep)');
  if (!entries) return out;
  checkKeys(src, entries, AUDIT_KEYS, 'audit');
  for (const e of entries) {
    if (e.key === 'enabled' || e.key === 'arguments') {
      const v = readBool(src, e.value, e.field);
      if (v !== undefined) out[e.key] = v;
    } else if (e.key === 'maxBytes' || e.key === 'keep') {
      const v = readNumber(src, e.value, e.field, AUDIT_NUMBERS[e.key]);
      if (v !== undefined) out[e.key] = v;
    } else if (e.key === 'file') {
      const v = readString(src, e.value, e.field);
      if (v !== undefined) out.file = v === '' || isAbsolute(v) ? v : resolve(storeDir, v);
    }
  }
  return out;
}

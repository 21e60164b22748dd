import { checkKeys, mapEntries, readString } from './fields.js';
import { whereOf, type Source, type Where, type YNode } from './source.js';

export interface CallerRef {
  caller: string;
  profile: string;
  where: Where;
}

/** `callers: { caller: profile }`; existence of the profiles is checked by the loader. */
export function parseCallers(src: Source): CallerRef[] {
  const entries = mapEntries(src, src.doc.contents as YNode, '', 'a mapping with a "callers" key');
  if (!entries) return [];
  checkKeys(src, entries, ['callers'], 'callers.yaml');
  const callers = entries.find((e) => e.key === 'callers');
  if (!callers) return [];
  const out: CallerRef[] = [];
  for (const e of mapEntries(src, callers.value, 'callers', 'a mapping of caller names to profile names') ?? []) {
    const profile = readString(src, e.value, e.field, true);
    if (profile !== undefined) out.push({ caller: e.key, profile, where: whereOf(src, e.value, e.field) });
  }
  return out;
}

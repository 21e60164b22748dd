import { isMap } from 'yaml';
import { checkKeys, mapEntries, readNumber, readString } from './fields.js';
import { report, whereOf, type Source, type Where, type YNode } from './source.js';

export interface CallerRef {
  caller: string;
  profile: string;
  where: Where;
  /** The caller's own `reserve` (the long form), and where it is written. */
  reserve?: { value: number; where: Where };
}

/** The keys of a caller's long form, `caller: { profile, reserve }`. */
export const CALLER_KEYS = ['profile', 'reserve'] as const;

/**
 * `callers: { caller: profile }`, or per caller the long form `{ profile, reserve }`: `reserve` is the
 * tool-name room this caller's client keeps for its own prefix (it replaces the profile's
 * `namespace.reserve` for this caller only). Existence of the profiles and the name budget left are
 * checked by the loader. `policies:` beside it is read by policy-parse.ts.
 */
export function parseCallers(src: Source): CallerRef[] {
  const entries = mapEntries(src, src.doc.contents as YNode, '', 'a mapping with a "callers" key');
  if (!entries) return [];
  checkKeys(src, entries, ['callers', 'policies'], 'callers.yaml');
  const callers = entries.find((e) => e.key === 'callers');
  if (!callers) return [];
  const out: CallerRef[] = [];
  const what = 'a mapping of caller names to profile names (or to { profile, reserve })';
  for (const e of mapEntries(src, callers.value, 'callers', what) ?? []) {
    const ref = isMap(e.value) ? longForm(src, e.key, e.value, e.field) : shortForm(src, e.key, e.value, e.field);
    if (ref) out.push(ref);
  }
  return out;
}

function shortForm(src: Source, caller: string, node: YNode, field: string): CallerRef | undefined {
  const profile = readString(src, node, field, true);
  return profile === undefined ? undefined : { caller, profile, where: whereOf(src, node, field) };
}

function longForm(src: Source, caller: string, node: YNode, field: string): CallerRef | undefined {
  const entries = mapEntries(src, node, field, 'a mapping with profile and reserve') ?? [];
  checkKeys(src, entries, CALLER_KEYS, `caller "${caller}"`);
  const p = entries.find((e) => e.key === 'profile');
  if (!p) {
    report(
      src,
      node,
      field,
      `caller "${caller}" has no profile`,
      `write ${field}: { profile: default, reserve: N } (or just ${field}: default)`,
    );
    return undefined;
  }
  const profile = readString(src, p.value, p.field, true);
  if (profile === undefined) return undefined;
  const r = entries.find((e) => e.key === 'reserve');
  const value = r && readNumber(src, r.value, r.field, { integer: true, min: 0 });
  const reserve = r && value !== undefined ? { value, where: whereOf(src, r.value, r.field) } : undefined;
  return { caller, profile, where: whereOf(src, p.value, p.field), ...(reserve ? { reserve } : {}) };
}

import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, parse as parseYaml, parseDocument } from 'yaml';
import { DEFAULT_NAMESPACE } from '../contract/model/profile.js';
import { storeFolder } from '../contract/store/state-dir.js';

/** The profile a caller gets: its callers.yaml mapping, else `default` (what the core does too). */
export interface CallerProfile {
  name: string;
  file: string;
  /** True when callers.yaml does not map the caller: the profile serves other callers as well. */
  shared: boolean;
}

function readYaml(file: string): unknown {
  try {
    return parseYaml(readFileSync(file, 'utf8'));
  } catch {
    // No such file or not YAML: nothing to learn from it (validate reports a broken store).
    return undefined;
  }
}

export function callerProfile(configDir: string, caller: string): CallerProfile {
  const dir = storeFolder(configDir);
  const callers = readYaml(join(dir, 'callers.yaml')) as { callers?: Record<string, unknown> } | undefined;
  const mapped = callers?.callers?.[caller];
  const name = typeof mapped === 'string' ? mapped : 'default';
  return { name, file: join(dir, 'profiles', `${name}.yaml`), shared: typeof mapped !== 'string' };
}

/** The server names of the caller's profile. */
export function profileServerNames(p: CallerProfile): string[] {
  const doc = readYaml(p.file) as { servers?: { name?: unknown }[] } | undefined;
  return (doc?.servers ?? []).flatMap((s) => (typeof s?.name === 'string' ? [s.name] : []));
}

export type ReserveOutcome =
  { kind: 'kept'; reserve: number } | { kind: 'raised'; from: number; to: number } | { kind: 'missing' } | { kind: 'failed'; why: string };

/**
 * Raises the profile's `namespace.reserve` to `needed` (never lowers it: a larger reserve only shortens
 * names, which every client takes). The YAML is edited in place, so comments stay; `write: false` only
 * says what would change. `needed` is computed against the profile's own maxLength by `neededFor`.
 */
export async function raiseReserve(p: CallerProfile, neededFor: (maxLength: number) => number, write: boolean): Promise<ReserveOutcome> {
  if (!existsSync(p.file)) return { kind: 'missing' };
  const doc = parseDocument(readFileSync(p.file, 'utf8'));
  const [error] = doc.errors;
  if (error) return { kind: 'failed', why: `${p.file} does not parse: ${error.message}` };
  const ns = doc.get('namespace');
  if (ns !== undefined && ns !== null && !isMap(ns)) return { kind: 'failed', why: `"namespace" in ${p.file} is not a mapping` };
  const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  const current = num(doc.getIn(['namespace', 'reserve']), 0);
  const needed = neededFor(num(doc.getIn(['namespace', 'maxLength']), DEFAULT_NAMESPACE.maxLength));
  if (current >= needed) return { kind: 'kept', reserve: current };
  if (write) {
    if (!isMap(ns)) doc.set('namespace', doc.createNode({ reserve: needed }));
    else doc.setIn(['namespace', 'reserve'], needed);
    await writeFile(p.file, String(doc));
  }
  return { kind: 'raised', from: current, to: needed };
}

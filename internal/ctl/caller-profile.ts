import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, parse as parseYaml, parseDocument, type Document } from 'yaml';
import { DEFAULT_NAMESPACE } from '../contract/model/profile.js';
import { storeFolder } from '../launch/state-dir.js';

/** The profile a caller gets: its callers.yaml mapping, else `default` (what the core does too). */
export interface CallerProfile {
  caller: string;
  name: string;
  file: string;
  /** The store's callers.yaml, where the caller's own reserve goes. */
  callersFile: string;
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

/** The profile a callers.yaml value names: `caller: work` or `caller: { profile: work, reserve: 11 }`. */
export function mappedProfile(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const p = typeof value === 'object' && value !== null ? (value as { profile?: unknown }).profile : undefined;
  return typeof p === 'string' ? p : undefined;
}

export function callerProfile(configDir: string, caller: string): CallerProfile {
  const dir = storeFolder(configDir);
  const callersFile = join(dir, 'callers.yaml');
  const callers = readYaml(callersFile) as { callers?: Record<string, unknown> } | undefined;
  const mapped = mappedProfile(callers?.callers?.[caller]);
  const name = mapped ?? 'default';
  return { caller, name, file: join(dir, 'profiles', `${name}.yaml`), callersFile, shared: mapped === undefined };
}

export type ReserveOutcome =
  | { kind: 'kept'; reserve: number; own: boolean }
  | { kind: 'raised'; from: number; to: number }
  | { kind: 'missing' }
  | { kind: 'failed'; why: string };

const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);

function parsed(file: string, text: string): Document | string {
  const doc = parseDocument(text);
  const [error] = doc.errors;
  return error ? `${file} does not parse: ${error.message}` : doc;
}

/**
 * Raises the caller's own `reserve` in callers.yaml to `needed` — `caller: { profile, reserve }`, the
 * plain `caller: profile` form turned into it — so only this caller's names get shorter: another caller
 * of the same profile, connected from a client with another prefix, keeps its own budget. Never lowers
 * what the caller has now (its own reserve, else its profile's `namespace.reserve`): a larger reserve
 * only shortens names, which every client takes. The YAML is edited in place, so comments stay;
 * `write: false` only says what would change. `needed` is computed against the profile's maxLength.
 */
export async function raiseReserve(p: CallerProfile, neededFor: (maxLength: number) => number, write: boolean): Promise<ReserveOutcome> {
  if (!existsSync(p.file)) return { kind: 'missing' };
  const profile = parsed(p.file, readFileSync(p.file, 'utf8'));
  if (typeof profile === 'string') return { kind: 'failed', why: profile };
  const callers = parsed(p.callersFile, existsSync(p.callersFile) ? readFileSync(p.callersFile, 'utf8') : '');
  if (typeof callers === 'string') return { kind: 'failed', why: callers };
  const table = callers.get('callers');
  if (table !== undefined && table !== null && !isMap(table))
    return { kind: 'failed', why: `"callers" in ${p.callersFile} is not a mapping` };
  const entry = callers.getIn(['callers', p.caller]);
  const own = isMap(entry) ? entry.get('reserve') : undefined;
  const current = num(own, num(profile.getIn(['namespace', 'reserve']), 0));
  const needed = neededFor(num(profile.getIn(['namespace', 'maxLength']), DEFAULT_NAMESPACE.maxLength));
  if (current >= needed) return { kind: 'kept', reserve: current, own: typeof own === 'number' };
  if (write) {
    if (isMap(entry)) entry.set('reserve', needed);
    else {
      const node = callers.createNode({ profile: p.name, reserve: needed });
      node.flow = true;
      if (isMap(table)) {
        // A flow-style `callers: {}` stays readable: the table turns block style, one caller per line.
        table.flow = false;
        table.set(p.caller, node);
      } else callers.set('callers', callers.createNode({ [p.caller]: node }));
    }
    await writeFile(p.callersFile, String(callers));
  }
  return { kind: 'raised', from: current, to: needed };
}

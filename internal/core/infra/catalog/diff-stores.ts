import { canonicalSpecJson, specFingerprint } from '../../../contract/model/fingerprint.js';
import type { Profile, ProfileStore } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { StoreDiff } from '../../../store/types.js';

export interface SpecUse {
  spec: ServerSpec;
  /** "profile/server", sorted. */
  references: string[];
}

/** One entry per pool: enabled specs keyed by fingerprint, with every profile/server that uses it. */
export function specsByFingerprint(store: ProfileStore): Map<string, SpecUse> {
  const out = new Map<string, SpecUse>();
  for (const name of [...store.profiles.keys()].sort()) {
    for (const spec of (store.profiles.get(name) as Profile).servers) {
      if (spec.disabled) continue;
      const fp = specFingerprint(spec);
      const use = out.get(fp);
      if (use) use.references.push(`${name}/${spec.name}`);
      else out.set(fp, { spec, references: [`${name}/${spec.name}`] });
    }
  }
  for (const use of out.values()) use.references.sort();
  return out;
}

/** What a profile exposes: server order and names matter (namespacing), so they are part of it. */
function profileKey(p: Profile): string {
  return JSON.stringify({
    servers: p.servers.map((s) => [s.name, canonicalSpecJson(s)]),
    inputs: p.inputs.map((i) => JSON.stringify(i, Object.keys(i).sort())),
    namespace: [p.namespace.mode, p.namespace.separator, p.namespace.maxLength, p.namespace.reserve ?? 0],
    toolSearch: p.toolSearch ?? null,
  });
}

function sameMap<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

function sameRuntime(a: ProfileStore['runtime'], b: ProfileStore['runtime']): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof ProfileStore['runtime']>;
  return [...keys].every((k) => a[k] === b[k]);
}

const NONE: ReadonlyMap<string, number> = new Map();

/** The difference between two loaded stores, so the core can apply only what changed. */
export function diffStores(prev: ProfileStore, next: ProfileStore): StoreDiff {
  const before = specsByFingerprint(prev);
  const after = specsByFingerprint(next);
  const names = new Set([...prev.profiles.keys(), ...next.profiles.keys()]);
  const changedProfiles = [...names].filter((n) => {
    const a = prev.profiles.get(n);
    const b = next.profiles.get(n);
    return !a || !b || profileKey(a) !== profileKey(b);
  });
  return {
    addedFingerprints: [...after.keys()].filter((f) => !before.has(f)).sort(),
    removedFingerprints: [...before.keys()].filter((f) => !after.has(f)).sort(),
    changedProfiles: changedProfiles.sort(),
    callersChanged: !sameMap(prev.callers, next.callers) || !sameMap(prev.callerReserves ?? NONE, next.callerReserves ?? NONE),
    runtimeChanged: !sameRuntime(prev.runtime, next.runtime),
  };
}

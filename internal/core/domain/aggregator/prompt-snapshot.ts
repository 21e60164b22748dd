import type { PromptEntry, PromptSnapshot } from '../../../contract/control/control-areas.js';
import type { JsonObject } from '../../../shared/json.js';
import { chooseToolName, compareNames, prefixedName, prefixFitLength } from '../../../contract/model/naming.js';
import type { Profile } from '../../../contract/model/profile.js';
import { definitionHash, etagOf } from './hash.js';
import { renamedOnClash, resolveNameClaims, type NameClaim } from './name-claims.js';

/** MCP Prompt objects per server name, unchanged. */
export type PromptsByServer = ReadonlyMap<string, readonly JsonObject[]>;

interface Candidate {
  server: string;
  name: string;
  definition: JsonObject;
}

function candidates(profile: Profile, byServer: PromptsByServer): Candidate[] {
  const specs = profile.servers.filter((s) => !s.disabled).sort((a, b) => compareNames(a.name, b.name));
  const out: Candidate[] = [];
  for (const spec of specs) {
    const seen = new Set<string>();
    for (const definition of byServer.get(spec.name) ?? []) {
      const name = definition.name;
      // A nameless prompt cannot be asked for; a repeated one would shadow itself.
      if (typeof name !== 'string' || name === '' || seen.has(name)) continue;
      seen.add(name);
      out.push({ server: spec.name, name, definition });
    }
  }
  return out;
}

/**
 * One profile's prompts, named exactly like tools under the profile's NamespacePolicy (no aliases:
 * toolMeta is about tools). Two prompts wanting one name are both exposed, the loser renamed, and
 * the clash reported.
 */
export function buildPromptSnapshot(
  profile: Profile,
  fingerprintOf: (server: string) => string,
  byServer: PromptsByServer,
): PromptSnapshot {
  const policy = profile.namespace;
  const cands = candidates(profile, byServer);
  // One prefix per server across its prompts, fitted to its prompt names (as tools are to theirs).
  const namesOf = new Map<string, string[]>();
  for (const c of cands) namesOf.set(c.server, [...(namesOf.get(c.server) ?? []), c.name]);
  const fit = new Map([...namesOf].map(([server, names]) => [server, prefixFitLength(names, policy)]));
  const prefixedOf = (server: string, name: string) => prefixedName(server, name, policy, fit.get(server));
  const claims: NameClaim[] = cands.map((c) => {
    const preferred = chooseToolName(c.server, c.name, policy, undefined, fit.get(c.server)).name;
    const prefixed = prefixedOf(c.server, c.name);
    return { server: c.server, key: c.name, preferred, explicit: false, alternatives: prefixed === preferred ? [] : [prefixed] };
  });
  const { names, collisions } = resolveNameClaims(
    claims,
    renamedOnClash(policy, (claim) => prefixedOf(claim.server, claim.key)),
  );
  const prompts: PromptEntry[] = [];
  cands.forEach((c, i) => {
    const name = names[i];
    if (name === undefined) return;
    prompts.push(
      Object.freeze({
        name,
        server: c.server,
        downstreamName: c.name,
        fingerprint: fingerprintOf(c.server),
        definition: Object.freeze({ ...c.definition, name }),
      }),
    );
  });
  prompts.sort((a, b) => compareNames(a.name, b.name));
  const etag = etagOf(prompts.map((p) => [p.name, p.server, definitionHash(p.definition)]));
  return Object.freeze({ etag, prompts: Object.freeze(prompts), collisions: Object.freeze(collisions) });
}

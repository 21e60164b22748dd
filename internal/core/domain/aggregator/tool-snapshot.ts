import { chooseToolName, compareNames, prefixFitLength, prefixedName } from '../../../contract/model/naming.js';
import type { ListingProblem } from '../../../contract/model/naming.js';
import type { NamespacePolicy, Profile } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { DownstreamTool, ToolEntry, ToolSnapshot } from '../../../contract/model/tool.js';
import { definitionHash, etagOf } from './hash.js';
import { renamedOnClash, resolveNameClaims } from './name-claims.js';
import type { NameClaim } from './name-claims.js';
import { selectTools } from './tool-selection.js';
import { toolSearchView } from './tool-search-view.js';

interface Candidate {
  spec: ServerSpec;
  tool: DownstreamTool;
  /** What the server's one prefix is fitted to: prefixFitLength of the tools it exposes. */
  fit: number;
}

function claimFor(c: Candidate, policy: NamespacePolicy, problems: ListingProblem[]): NameClaim {
  const { spec, tool, fit } = c;
  const choice = chooseToolName(spec.name, tool.name, policy, spec.toolMeta[tool.name], fit);
  if (choice.aliasRejected) {
    problems.push({
      kind: 'invalid-alias',
      server: spec.name,
      name: tool.name,
      message: `toolMeta.${tool.name}.alias on server "${spec.name}" was not used: ${choice.aliasRejected}; the tool is exposed as "${choice.name}"`,
    });
  }
  const plain = chooseToolName(spec.name, tool.name, policy, undefined, fit).name;
  const prefixed = prefixedName(spec.name, tool.name, policy, fit);
  const alternatives = [...new Set([plain, prefixed])].filter((n) => n !== choice.name);
  return { server: spec.name, key: tool.name, preferred: choice.name, explicit: choice.source === 'alias', alternatives };
}

function entryFor(c: Candidate, name: string, fingerprintOf: (server: string) => string): ToolEntry {
  return Object.freeze({
    name,
    server: c.spec.name,
    fingerprint: fingerprintOf(c.spec.name),
    downstreamName: c.tool.name,
    definition: Object.freeze({ ...c.tool.definition, name }),
    definitionHash: definitionHash(c.tool.definition),
  });
}

function candidates(
  profile: Profile,
  toolsByServer: ReadonlyMap<string, readonly DownstreamTool[]>,
  problems: ListingProblem[],
): Candidate[] {
  const specs = profile.servers.filter((s) => !s.disabled).sort((a, b) => compareNames(a.name, b.name));
  const out: Candidate[] = [];
  for (const spec of specs) {
    // A server whose tools are not known yet contributes nothing, and its config cannot be checked.
    const tools = toolsByServer.get(spec.name);
    if (!tools) continue;
    const sel = selectTools(spec, tools);
    problems.push(...sel.problems);
    const fit = prefixFitLength(
      sel.kept.map((t) => t.name),
      profile.namespace,
    );
    for (const tool of sel.kept) out.push({ spec, tool, fit });
  }
  return out;
}

/**
 * One profile's tool listing. Deterministic: the same profile and tools give the same snapshot and
 * etag. Two tools wanting one name are both exposed (the loser renamed) and reported in `collisions`.
 */
export function buildToolSnapshot(
  profile: Profile,
  fingerprintOf: (serverName: string) => string,
  toolsByServer: ReadonlyMap<string, readonly DownstreamTool[]>,
): ToolSnapshot {
  const policy = profile.namespace;
  const problems: ListingProblem[] = [];
  const cands = candidates(profile, toolsByServer, problems);
  const claims = cands.map((c) => claimFor(c, policy, problems));
  const fit = new Map(cands.map((c) => [c.spec.name, c.fit]));
  const { names, collisions } = resolveNameClaims(
    claims,
    renamedOnClash(policy, (claim) => prefixedName(claim.server, claim.key, policy, fit.get(claim.server))),
  );
  const tools: ToolEntry[] = [];
  cands.forEach((c, i) => {
    const name = names[i];
    if (name !== undefined) tools.push(entryFor(c, name, fingerprintOf));
  });
  tools.sort((a, b) => compareNames(a.name, b.name));
  const etag = etagOf(tools.map((t) => [t.name, t.definitionHash, t.server]));
  const full: ToolSnapshot = Object.freeze({
    etag,
    tools: Object.freeze(tools),
    collisions: Object.freeze(collisions),
    problems: Object.freeze(problems),
  });
  return profile.toolSearch ? toolSearchView(full, profile.toolSearch) : full;
}

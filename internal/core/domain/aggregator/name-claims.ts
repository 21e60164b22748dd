import { compareNames, nameBudget, withHashSuffix } from '../../../contract/model/naming.js';
import type { NamespacePolicy } from '../../../contract/model/profile.js';
import type { NameCollision } from '../../../contract/model/tool.js';
import { must } from '../../../shared/must.js';

/** One item asking for an exposed name. Generic: tools and prompts use it; resources (keyed by URI) may. */
export interface NameClaim {
  server: string;
  /** Identifies the item within its server (downstream name, URI …). */
  key: string;
  /** The name the item asks for. */
  preferred: string;
  /** Explicit claims (aliases) beat derived ones. */
  explicit: boolean;
  /** Names to try, in order, when the preferred one is taken (e.g. the prefixed form in `never` mode). */
  alternatives: readonly string[];
}

/**
 * Last resort for a claim whose preferred name and alternatives are all taken: attempt 0, 1, … must
 * yield different names. Undefined means the item cannot be renamed (a URI); it is then left out and
 * reported.
 */
export type Disambiguate = (claim: NameClaim, attempt: number) => string | undefined;

/**
 * The last resort for tools and prompts: the claim's prefixed name (`prefixedOf`, the server's one prefix)
 * cut to make room for a hash of server, key and attempt.
 */
export function renamedOnClash(policy: NamespacePolicy, prefixedOf: (claim: NameClaim) => string): Disambiguate {
  return (claim, attempt) =>
    withHashSuffix(prefixedOf(claim), `${claim.server}\u0000${claim.key}${attempt > 0 ? `\u0000${attempt}` : ''}`, nameBudget(policy));
}

export interface ClaimResolution {
  /** Exposed name per claim, in input order; undefined = left out (reported in `collisions`). */
  names: (string | undefined)[];
  collisions: NameCollision[];
}

const MAX_DISAMBIGUATION_ATTEMPTS = 16;

function byRank(claims: readonly NameClaim[]): (a: number, b: number) => number {
  return (a, b) => {
    const x = must(claims[a], 'ranked claim');
    const y = must(claims[b], 'ranked claim');
    if (x.explicit !== y.explicit) return x.explicit ? -1 : 1;
    return compareNames(x.server, y.server) || compareNames(x.key, y.key) || a - b;
  };
}

function label(c: NameClaim): string {
  return `${c.server}/${c.key}`;
}

function placeLoser(claim: NameClaim, taken: Set<string>, disambiguate: Disambiguate): string | undefined {
  for (const alt of claim.alternatives) if (!taken.has(alt)) return alt;
  for (let attempt = 0; attempt < MAX_DISAMBIGUATION_ATTEMPTS; attempt++) {
    const name = disambiguate(claim, attempt);
    if (name === undefined) return undefined;
    if (!taken.has(name)) return name;
  }
  return undefined;
}

/**
 * Gives every claim a distinct name. Within a group asking for one name the winner is the explicit
 * claim, then the server that sorts first, then the key that sorts first; the result does not depend
 * on input order. Winners are placed before any loser, so a loser's fallback never displaces a winner.
 */
export function resolveNameClaims(claims: readonly NameClaim[], disambiguate: Disambiguate): ClaimResolution {
  const names: (string | undefined)[] = new Array<string | undefined>(claims.length).fill(undefined);
  const groups = new Map<string, number[]>();
  claims.forEach((c, i) => {
    const g = groups.get(c.preferred);
    if (g) g.push(i);
    else groups.set(c.preferred, [i]);
  });
  const rank = byRank(claims);
  const taken = new Set<string>();
  const contested: [string, number[]][] = [];
  for (const [name, members] of groups) {
    members.sort(rank);
    names[must(members[0], 'first member of a name group')] = name;
    taken.add(name);
    if (members.length > 1) contested.push([name, members]);
  }
  const losers = contested.flatMap(([, members]) => members.slice(1)).sort(rank);
  for (const i of losers) {
    const placed = placeLoser(must(claims[i], 'losing claim'), taken, disambiguate);
    names[i] = placed;
    if (placed !== undefined) taken.add(placed);
  }
  contested.sort(([a], [b]) => compareNames(a, b));
  const collisions = contested.map(([name, members]) => describe(name, members, claims, names));
  return { names, collisions };
}

function describe(name: string, members: number[], claims: readonly NameClaim[], names: (string | undefined)[]): NameCollision {
  const [winner, ...rest] = members.map((i) => must(claims[i], 'contested claim'));
  if (!winner) throw new Error('internal error: a contested name without claims');
  const outcomes = rest.map((c, k) => {
    const to = names[must(members[k + 1], 'contested member')];
    return to === undefined ? `${label(c)} left out (no free name)` : `${label(c)} exposed as "${to}"`;
  });
  return {
    name,
    servers: [winner, ...rest].map((c) => c.server),
    resolution: `"${name}" kept by ${label(winner)}${winner.explicit ? ' (alias)' : ''}; ${outcomes.join('; ')}`,
  };
}

import type { ResourceEntry, ResourceSnapshot, ResourceTemplateEntry } from '../../../contract/control/control-areas.js';
import type { JsonObject } from '../../../shared/json.js';
import { compareNames } from '../../../contract/model/naming.js';
import type { Profile } from '../../../contract/model/profile.js';
import type { NameCollision } from '../../../contract/model/tool.js';
import { definitionHash, etagOf } from './hash.js';
import { must } from '../../../shared/must.js';

/** What one server lists: MCP Resource and ResourceTemplate objects, unchanged. */
export interface ResourceListing {
  resources: readonly JsonObject[];
  templates: readonly JsonObject[];
}

export type ResourcesByServer = ReadonlyMap<string, ResourceListing>;

interface Keyed {
  key: string;
  server: string;
  definition: JsonObject;
}

/**
 * Keeps one item per key (URI or URI template; they are not namespaced, so a clash cannot be
 * renamed away): the server that sorts first wins, the others are left out and reported.
 */
function claim(items: Keyed[], what: string): { kept: Keyed[]; collisions: NameCollision[] } {
  const byKey = new Map<string, Keyed[]>();
  for (const it of items) {
    const g = byKey.get(it.key);
    if (g) g.push(it);
    else byKey.set(it.key, [it]);
  }
  const kept: Keyed[] = [];
  const collisions: NameCollision[] = [];
  for (const [key, group] of byKey) {
    kept.push(must(group[0], 'first of a key group')); // groups are created with their first item
    if (group.length === 1) continue;
    const servers = group.map((g) => g.server);
    const losers = servers.slice(1).map((s) => (s === servers[0] ? `a second listing by ${s}` : s));
    collisions.push({
      name: key,
      servers,
      resolution: `${what} "${key}" is served by ${servers[0]}; ${losers.join(', ')} left out (${what}s are not renamed)`,
    });
  }
  kept.sort((a, b) => compareNames(a.key, b.key));
  collisions.sort((a, b) => compareNames(a.name, b.name));
  return { kept, collisions };
}

function keyed(server: string, list: readonly JsonObject[], field: string): Keyed[] {
  const out: Keyed[] = [];
  for (const definition of list) {
    const key = definition[field];
    if (typeof key === 'string' && key !== '') out.push({ key, server, definition });
  }
  return out;
}

/**
 * One profile's resources and templates. Deterministic: servers are visited in name order, so the
 * same lists give the same snapshot and etag whatever order they arrived in.
 */
export function buildResourceSnapshot(profile: Profile, byServer: ResourcesByServer): ResourceSnapshot {
  const specs = profile.servers.filter((s) => !s.disabled).sort((a, b) => compareNames(a.name, b.name));
  const res: Keyed[] = [];
  const tpl: Keyed[] = [];
  for (const spec of specs) {
    const listing = byServer.get(spec.name);
    if (!listing) continue;
    res.push(...keyed(spec.name, listing.resources, 'uri'));
    tpl.push(...keyed(spec.name, listing.templates, 'uriTemplate'));
  }
  const r = claim(res, 'URI');
  const t = claim(tpl, 'URI template');
  const resources: ResourceEntry[] = r.kept.map((k) => Object.freeze({ uri: k.key, server: k.server, definition: k.definition }));
  const templates: ResourceTemplateEntry[] = t.kept.map((k) =>
    Object.freeze({ uriTemplate: k.key, server: k.server, definition: k.definition }),
  );
  const etag = etagOf([
    ...resources.map((e) => ['r', e.uri, e.server, definitionHash(e.definition)]),
    ...templates.map((e) => ['t', e.uriTemplate, e.server, definitionHash(e.definition)]),
  ]);
  return Object.freeze({
    etag,
    resources: Object.freeze(resources),
    templates: Object.freeze(templates),
    collisions: Object.freeze([...r.collisions, ...t.collisions]),
  });
}

import type { DownstreamTool } from '../../../contract/model/tool.js';
import { definitionHash } from './hash.js';

/**
 * A server's new tool list with every tool whose definition did not change replaced by the object it
 * had before. A re-listing parses every definition afresh; the snapshots a cursor keeps alive and the
 * indexes then share one copy of what stayed the same instead of one per change.
 */
export function reuseUnchanged(before: readonly DownstreamTool[] | undefined, after: readonly DownstreamTool[]): DownstreamTool[] {
  if (!before || before.length === 0) return [...after];
  const old = new Map(before.map((t) => [t.name, t]));
  return after.map((t) => {
    const was = old.get(t.name);
    return was !== undefined && definitionHash(was.definition) === definitionHash(t.definition) ? was : t;
  });
}

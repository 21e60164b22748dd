import type { ListingProblem } from '../../domain/naming.js';
import type { ServerSpec } from '../../domain/spec.js';
import type { DownstreamTool } from '../../domain/tool.js';

export interface ToolSelection {
  kept: DownstreamTool[];
  problems: ListingProblem[];
}

function dedupe(server: string, tools: readonly DownstreamTool[], problems: ListingProblem[]): DownstreamTool[] {
  const seen = new Set<string>();
  const out: DownstreamTool[] = [];
  for (const t of tools) {
    if (seen.has(t.name)) {
      problems.push({
        kind: 'duplicate-tool',
        server,
        name: t.name,
        message: `server "${server}" lists tool "${t.name}" more than once; the first definition is used`,
      });
      continue;
    }
    seen.add(t.name);
    out.push(t);
  }
  return out;
}

function reportUnknown(server: string, names: Iterable<string>, have: Set<string>, field: string, problems: ListingProblem[]): void {
  for (const name of names) {
    if (have.has(name)) continue;
    problems.push({
      kind: 'unknown-tool',
      server,
      name,
      message: `${field} names tool "${name}", but server "${server}" has no such tool (it has ${have.size} tools); check the spelling`,
    });
  }
}

/**
 * Applies one server's `exposeTools` allow-list and `forbiddenTools` (forbidden wins), and reports
 * configured names the server does not have. A disabled server is the caller's business: it is not
 * passed here at all.
 */
export function selectTools(spec: ServerSpec, tools: readonly DownstreamTool[]): ToolSelection {
  const problems: ListingProblem[] = [];
  const unique = dedupe(spec.name, tools, problems);
  const have = new Set(unique.map((t) => t.name));
  const allow = spec.exposeTools ? new Set(spec.exposeTools) : undefined;
  const forbidden = new Set(spec.forbiddenTools);
  if (spec.exposeTools) reportUnknown(spec.name, spec.exposeTools, have, 'exposeTools', problems);
  reportUnknown(spec.name, Object.keys(spec.toolMeta), have, 'toolMeta', problems);
  const kept = unique.filter((t) => (!allow || allow.has(t.name)) && !forbidden.has(t.name));
  return { kept, problems };
}

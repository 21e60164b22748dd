import type { ListingProblem } from '../../../contract/model/naming.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { NamePatterns } from '../tool-glob.js';

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

function reportUnknown(server: string, patterns: NamePatterns, names: readonly string[], field: string, problems: ListingProblem[]): void {
  for (const p of patterns.unmatched(names)) {
    problems.push({
      kind: 'unknown-tool',
      server,
      name: p.text,
      message: p.isGlob
        ? `${field} pattern "${p.text}" matches none of the ${names.length} tools of server "${server}"; check the pattern`
        : `${field} names tool "${p.text}", but server "${server}" has no such tool (it has ${names.length} tools); check the spelling`,
    });
  }
}

/**
 * Applies one server's `exposeTools` allow-list and `forbiddenTools` (forbidden wins; both take exact
 * names or `*`/`?` globs), and reports configured names and patterns that match nothing. A disabled
 * server is the caller's business: it is not passed here at all.
 */
export function selectTools(spec: ServerSpec, tools: readonly DownstreamTool[]): ToolSelection {
  const problems: ListingProblem[] = [];
  const unique = dedupe(spec.name, tools, problems);
  const names = unique.map((t) => t.name);
  const allow = spec.exposeTools ? new NamePatterns(spec.exposeTools) : undefined;
  const forbidden = new NamePatterns(spec.forbiddenTools);
  if (allow) reportUnknown(spec.name, allow, names, 'exposeTools', problems);
  // toolMeta keys are exact names (the lookup is exact), so they are checked as such.
  const have = new Set(names);
  for (const key of Object.keys(spec.toolMeta)) {
    if (have.has(key)) continue;
    problems.push({
      kind: 'unknown-tool',
      server: spec.name,
      name: key,
      message: `toolMeta names tool "${key}", but server "${spec.name}" has no such tool (it has ${names.length} tools); check the spelling`,
    });
  }
  const kept = unique.filter((t) => (!allow || allow.matches(t.name)) && !forbidden.matches(t.name));
  return { kept, problems };
}

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
  if (!spec.taskTools?.length) return { kept, problems };
  const tasks = new NamePatterns(spec.taskTools);
  reportUnknown(spec.name, tasks, names, 'taskTools', problems);
  return { kept: kept.map((t) => (tasks.matches(t.name) ? asTaskTool(t) : t)), problems };
}

/**
 * A tool `taskTools` marks says it takes tasks (`execution.taskSupport: "optional"`), so clients see it in
 * its definition and the core hosts its tasks; a tool that declares task support itself keeps its own.
 */
function asTaskTool(t: DownstreamTool): DownstreamTool {
  const execution = t.definition.execution;
  const own = typeof execution === 'object' && execution !== null && !Array.isArray(execution) ? execution : {};
  if (own.taskSupport === 'optional' || own.taskSupport === 'required') return t;
  let marked = MARKED.get(t.definition);
  if (!marked) MARKED.set(t.definition, (marked = { ...t.definition, execution: { ...own, taskSupport: 'optional' } }));
  return { name: t.name, definition: marked };
}

/** Marked definitions per downstream one: a rebuild from the same cache gives the same object (hash.ts memoises by it). */
const MARKED = new WeakMap<DownstreamTool['definition'], DownstreamTool['definition']>();

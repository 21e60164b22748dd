import type { ListingProblem } from '../../../contract/model/naming.js';
import type { ToolSearchSettings } from '../../../contract/model/profile.js';
import { NamePatterns } from '../tool-glob.js';
import type { ToolEntry, ToolSnapshot } from '../../../contract/model/tool.js';
import { definitionHash, etagOf } from './hash.js';

/** Names of the two tools the core answers itself in tool search mode. */
export const SEARCH_TOOL = 'mcpd_search_tools';
export const CALL_TOOL = 'mcpd_call_tool';
/** `server` of the synthetic entries: no profile server can be called "" … so they never clash. */
export const SEARCH_MODE_SERVER = '';

function synthetic(name: string, definition: ToolEntry['definition']): ToolEntry {
  return Object.freeze({
    name,
    server: SEARCH_MODE_SERVER,
    fingerprint: '',
    downstreamName: name,
    definition: Object.freeze(definition),
    definitionHash: definitionHash(definition),
  });
}

function searchTool(settings: ToolSearchSettings): ToolEntry {
  return synthetic(SEARCH_TOOL, {
    name: SEARCH_TOOL,
    title: 'Search tools',
    description:
      'Finds the tools that can do a task, best match first, among every tool available here (most are not listed directly). ' +
      'Describe the task in a few words. Returns the full definitions (name, description, inputSchema) of the matches; ' +
      `then call one with ${CALL_TOOL}, passing its name and arguments.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, e.g. "create a GitHub issue" or "read a file"' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: `How many tools to return (default ${settings.maxResults})` },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  });
}

function callTool(): ToolEntry {
  return synthetic(CALL_TOOL, {
    name: CALL_TOOL,
    title: 'Call a tool',
    description: `Calls any available tool by its exact name (as returned by ${SEARCH_TOOL}) with its arguments, and returns that tool's result.`,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: `The tool's name, exactly as ${SEARCH_TOOL} returned it` },
        arguments: { type: 'object', description: "The tool's arguments, matching its inputSchema", additionalProperties: true },
      },
      required: ['name'],
    },
  });
}

/**
 * The snapshot a tool-search profile exposes: the search tool, the call tool and the pinned tools
 * in `tools`, every tool in `catalog`. The etag covers only what is listed, so a catalog change
 * that leaves the listed tools alone does not send clients a list_changed they could not act on.
 */
export function toolSearchView(full: ToolSnapshot, settings: ToolSearchSettings): ToolSnapshot {
  const pinnedPatterns = new NamePatterns(settings.pinned);
  const problems: ListingProblem[] = [...(full.problems ?? [])];
  for (const p of pinnedPatterns.unmatched(full.tools.map((t) => t.name))) {
    problems.push({
      kind: 'unknown-tool',
      server: SEARCH_MODE_SERVER,
      name: p.text,
      message: `toolSearch.pinned ${p.isGlob ? 'pattern' : 'name'} "${p.text}" matches no exposed tool of the profile; pin exposed names (as "mcpdctl tools" shows them)`,
    });
  }
  const pinned = settings.pinned.length === 0 ? [] : full.tools.filter((t) => pinnedPatterns.matches(t.name));
  const tools = [searchTool(settings), callTool(), ...pinned.filter((t) => t.name !== SEARCH_TOOL && t.name !== CALL_TOOL)];
  return Object.freeze({
    etag: etagOf(tools.map((t) => [t.name, t.definitionHash, t.server])),
    tools: Object.freeze(tools),
    collisions: full.collisions,
    problems: Object.freeze(problems),
    catalog: full.tools,
  });
}

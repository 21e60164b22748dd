import type { JsonObject } from '../../../shared/json.js';
import { contextResources, contextTemplates, contextTools, FINDER_TOOL } from '../../../contract/context/context-listing.js';
import { contextKindOf, parseContextUri, renderDesktopText } from '../../../contract/context/context-uri.js';
import type { DashboardCore } from './dashboard-port.js';
import type { ContextChannels } from '../../../contract/control/context-channels.js';
import type { ResourceEntry, ResourceTemplateEntry } from '../../../contract/control/control-areas.js';
import type { DashboardTool } from '../../../contract/dashboard/dashboard-events.js';

/**
 * The context channels a gateway adds to a caller's lists (mcpd://desktop, mcpd://finder, mcpd_finder)
 * where the caller's servers give them content: the Caller view shows exactly what the MCP client sees,
 * so it adds the same ones, and serves them the way the gateway does.
 */
const SERVER = 'mcpd';

export function contextToolEntries(channels: ContextChannels): DashboardTool[] {
  return (channels.finder ? contextTools() : []).map((t) => ({
    name: t.name,
    server: SERVER,
    downstreamName: t.name,
    definition: t as unknown as JsonObject,
  }));
}

export function contextResourceEntries(channels: ContextChannels): ResourceEntry[] {
  return contextResources(channels).map((r) => ({ uri: r.uri, server: SERVER, definition: r as unknown as JsonObject }));
}

export function contextTemplateEntries(channels: ContextChannels): ResourceTemplateEntry[] {
  return contextTemplates(channels).map((t) => ({ uriTemplate: t.uriTemplate, server: SERVER, definition: t as unknown as JsonObject }));
}

function finderQuery(p: JsonObject) {
  const num = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : undefined);
  const kw = p.keywords;
  return {
    keywords: Array.isArray(kw) ? kw.map(String) : typeof kw === 'string' ? kw.split(/[\s,]+/).filter(Boolean) : undefined,
    fileType: typeof p.file_type === 'string' ? p.file_type : undefined,
    offset: num('offset'),
    limit: num('limit'),
  };
}

/** resources/read of a context URI, as the gateway answers it; undefined for any other URI. */
export async function readContext(core: DashboardCore, caller: string, uri: string): Promise<JsonObject | undefined> {
  if (!contextKindOf(uri)) return undefined;
  const parsed = parseContextUri(uri);
  if (parsed.kind === 'desktop') {
    const size = typeof parsed.params.size === 'number' ? parsed.params.size : undefined;
    const window = typeof parsed.params.window === 'string' ? parsed.params.window : undefined;
    const v = await core.context.desktop(caller, size, window);
    const json = parsed.format === 'json';
    return {
      contents: [
        { uri, mimeType: json ? 'application/json' : 'text/plain', text: json ? JSON.stringify(v) : renderDesktopText(v.windows) },
      ],
    };
  }
  const v = await core.context.finder(caller, finderQuery(parsed.params));
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ documents: v.documents, total_count: v.totalCount }) }] };
}

/** tools/call of mcpd_finder; undefined for any other tool. */
export async function callContextTool(
  core: DashboardCore,
  caller: string,
  name: string,
  args: JsonObject,
): Promise<JsonObject | undefined> {
  if (name !== FINDER_TOOL) return undefined;
  try {
    const v = await core.context.finder(caller, finderQuery(args));
    const out = { documents: v.documents, total_count: v.totalCount };
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  } catch (e) {
    return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
  }
}

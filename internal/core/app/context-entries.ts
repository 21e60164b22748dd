/**
 * What the core lists for the context channels (docs/desktop.md, docs/finder.md), per caller, where
 * the caller's servers give them content (`ResourcesApi.channels`):
 *   - resource `mcpd://desktop` and template `mcpd://desktop{?size,window,format}` (Desktop);
 *   - resource `mcpd://finder`, template `mcpd://finder{?keywords,file_type,offset,limit}` and tool
 *     `mcpd_finder` for clients that do not read resource templates (Finder).
 * Every face lists them as the core returns them: the gateway forwards, mcpdctl and the dashboard show.
 */
import type { ContextChannels } from '../../contract/control/context-channels.js';
import type { ResourceEntry, ResourceTemplateEntry } from '../../contract/control/control-areas.js';
import { DESKTOP_URI, FINDER_URI } from '../domain/context-uri.js';
import type { ToolEntry } from '../../contract/model/tool.js';
import type { JsonObject } from '../../shared/json.js';

/** The server name the context entries are listed under. */
export const CONTEXT_SERVER = 'mcpd';
export const FINDER_TOOL = 'mcpd_finder';

const DESKTOP_RESOURCE: JsonObject = {
  uri: DESKTOP_URI,
  name: 'desktop',
  title: 'Desktop',
  description:
    'The window:// resources of your servers, organized: most recently used server first, then by window priority. Subscribe to hear when it changes.',
  mimeType: 'text/plain',
};

const FINDER_RESOURCE: JsonObject = {
  uri: FINDER_URI,
  name: 'finder',
  title: 'Finder',
  description:
    'The first page of the dpe:// documents of your servers (JSON {documents, total_count}). Query with mcpd://finder?keywords=a,b&file_type=md&offset=0&limit=20; read a document with resources/read of its uri.',
  mimeType: 'application/json',
};

const DESKTOP_TEMPLATE: JsonObject = {
  uriTemplate: `${DESKTOP_URI}{?size,window,format}`,
  name: 'desktop',
  title: 'Desktop (sized or filtered)',
  description: 'size = at most this many windows; window = only the window with this window:// URI; format = text (default) or json.',
  mimeType: 'text/plain',
};

const FINDER_TEMPLATE: JsonObject = {
  uriTemplate: `${FINDER_URI}{?keywords,file_type,offset,limit}`,
  name: 'finder',
  title: 'Finder query',
  description:
    'keywords = comma-separated, any may match title, keywords or summary; file_type = exact (md, pdf, xlsx …); offset / limit page the result (limit defaults to 20).',
  mimeType: 'application/json',
};

const FINDER_TOOL_DEFINITION: JsonObject = {
  name: FINDER_TOOL,
  title: 'Find documents',
  description:
    'Search the dpe:// documents of your servers. Returns {documents, total_count}; each document has a uri you can read with resources/read (append /pages/N or ?format=markdown to go deeper).',
  inputSchema: {
    type: 'object',
    properties: {
      keywords: {
        type: 'array',
        items: { type: 'string' },
        description: 'any may match the title, a keyword or the summary (case-insensitive)',
      },
      file_type: { type: 'string', description: 'exact file type, e.g. md, pdf, xlsx' },
      offset: { type: 'integer', minimum: 0, description: 'documents to skip (default 0)' },
      limit: { type: 'integer', minimum: 0, description: 'page size (default 20)' },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export function contextResourceEntries(channels: ContextChannels): ResourceEntry[] {
  const out: ResourceEntry[] = [];
  if (channels.desktop) out.push({ uri: DESKTOP_URI, server: CONTEXT_SERVER, definition: DESKTOP_RESOURCE });
  if (channels.finder) out.push({ uri: FINDER_URI, server: CONTEXT_SERVER, definition: FINDER_RESOURCE });
  return out;
}

export function contextTemplateEntries(channels: ContextChannels): ResourceTemplateEntry[] {
  const out: ResourceTemplateEntry[] = [];
  if (channels.desktop)
    out.push({ uriTemplate: DESKTOP_TEMPLATE.uriTemplate as string, server: CONTEXT_SERVER, definition: DESKTOP_TEMPLATE });
  if (channels.finder)
    out.push({ uriTemplate: FINDER_TEMPLATE.uriTemplate as string, server: CONTEXT_SERVER, definition: FINDER_TEMPLATE });
  return out;
}

/** The Finder's tool; no pool serves it (the core answers it), so it has no fingerprint or definition hash. */
export function contextToolEntries(channels: ContextChannels): ToolEntry[] {
  if (!channels.finder) return [];
  return [
    {
      name: FINDER_TOOL,
      server: CONTEXT_SERVER,
      fingerprint: '',
      downstreamName: FINDER_TOOL,
      definition: FINDER_TOOL_DEFINITION,
      definitionHash: '',
    },
  ];
}

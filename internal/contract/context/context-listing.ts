/**
 * The context channels on the MCP surface (docs/desktop.md, docs/finder.md):
 *   - resource `mcpd://desktop` (readable, subscribable), template `mcpd://desktop{?size,window,format}`;
 *   - resource `mcpd://finder` and template `mcpd://finder{?keywords,file_type,offset,limit}`;
 *   - tool `mcpd_finder` for clients that do not read resource templates.
 * resources/* and tools/* handlers belong to the resources and tools areas (the SDK allows one
 * handler per method); they call the helpers exported here for these URIs and this tool.
 */
import type { CallToolResult, ReadResourceResult, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../shared/json.js';
import { toJsonRpcError } from './error-map.js';
import type { ForwardExtra, GatewayArea, GatewayContext } from './gateway-area.js';
import { CONTEXT_UPDATED } from '../areas/context.js';
import { contextKindOf, DESKTOP_URI, FINDER_URI, parseContextUri, renderDesktopText, type ContextKind } from './context-uri.js';
import { CONTEXT_CHANNELS_META, channelsFromMeta, type ContextChannels } from '../control/context-channels.js';

export { isContextUri } from './context-uri.js';

export const FINDER_TOOL = 'mcpd_finder';

interface AreaState {
  /** Subscribed URIs (as the client wrote them) per kind. */
  subscribed: Record<ContextKind, Set<string>>;
  /** Etag of the last view the client read, per kind: a subscription reports changes since then. */
  lastRead: Partial<Record<ContextKind, string>>;
}

const states = new WeakMap<GatewayContext, AreaState>();

function stateOf(ctx: GatewayContext): AreaState {
  let s = states.get(ctx);
  if (!s) {
    s = { subscribed: { desktop: new Set(), finder: new Set() }, lastRead: {} };
    states.set(ctx, s);
  }
  return s;
}

/** The channels the core named in a list result's `_meta`, removed from it (the client need not see them). */
export function takeChannels(result: JsonObject): ContextChannels {
  const meta = result._meta;
  const channels = channelsFromMeta(meta);
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) delete (meta as JsonObject)[CONTEXT_CHANNELS_META];
  return channels;
}

const ALL: ContextChannels = { desktop: true, finder: true };

/** The context resources of the channels given (all by default). */
export function contextResources(channels: ContextChannels = ALL): Resource[] {
  return contextResourceList().filter((r) => (r.uri === DESKTOP_URI ? channels.desktop : channels.finder));
}

function contextResourceList(): Resource[] {
  return [
    {
      uri: DESKTOP_URI,
      name: 'desktop',
      title: 'Desktop',
      description:
        'The window:// resources of your servers, organized: most recently used server first, then by window priority. Subscribe to hear when it changes.',
      mimeType: 'text/plain',
    },
    {
      uri: FINDER_URI,
      name: 'finder',
      title: 'Finder',
      description:
        'The first page of the dpe:// documents of your servers (JSON {documents, total_count}). Query with mcpd://finder?keywords=a,b&file_type=md&offset=0&limit=20; read a document with resources/read of its uri.',
      mimeType: 'application/json',
    },
  ];
}

/** The context resource templates of the channels given (all by default). */
export function contextTemplates(channels: ContextChannels = ALL): ResourceTemplate[] {
  return contextTemplateList().filter((t) => (t.uriTemplate.startsWith(DESKTOP_URI) ? channels.desktop : channels.finder));
}

function contextTemplateList(): ResourceTemplate[] {
  return [
    {
      uriTemplate: `${DESKTOP_URI}{?size,window,format}`,
      name: 'desktop',
      title: 'Desktop (sized or filtered)',
      description: 'size = at most this many windows; window = only the window with this window:// URI; format = text (default) or json.',
      mimeType: 'text/plain',
    },
    {
      uriTemplate: `${FINDER_URI}{?keywords,file_type,offset,limit}`,
      name: 'finder',
      title: 'Finder query',
      description:
        'keywords = comma-separated, any may match title, keywords or summary; file_type = exact (md, pdf, xlsx …); offset / limit page the result (limit defaults to 20).',
      mimeType: 'application/json',
    },
  ];
}

async function forward(ctx: GatewayContext, method: string, params: JsonObject, extra: ForwardExtra): Promise<JsonObject> {
  return (await ctx.forward(method, params, extra)) as JsonObject;
}

/** resources/read of a context URI. */
export async function readContextUri(ctx: GatewayContext, uri: string, extra: ForwardExtra): Promise<ReadResourceResult> {
  let parsed;
  try {
    parsed = parseContextUri(uri);
  } catch (e) {
    throw toJsonRpcError(e);
  }
  const state = stateOf(ctx);
  if (parsed.kind === 'desktop') {
    const v = await forward(ctx, 'mcpd/desktop/read', parsed.params, extra);
    const windows = v.windows as string[];
    if (!parsed.params.size && !parsed.params.window) state.lastRead.desktop = v.etag as string;
    const text = parsed.format === 'json' ? JSON.stringify(v) : renderDesktopText(windows);
    return {
      contents: [{ uri, mimeType: parsed.format === 'json' ? 'application/json' : 'text/plain', text }],
      _meta: { 'mcpd/etag': v.etag, 'mcpd/warnings': v.warnings },
    } as ReadResourceResult;
  }
  const v = await forward(ctx, 'mcpd/finder/query', parsed.params, extra);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(v) }] };
}

/** resources/subscribe of a context URI: the client gets resources/updated with this URI on every change. */
export async function subscribeContextUri(ctx: GatewayContext, uri: string, extra: ForwardExtra): Promise<Record<string, never>> {
  const kind = contextKindOf(uri);
  if (!kind) throw toJsonRpcError(new Error(`${uri} is not a context URI`));
  const state = stateOf(ctx);
  if (state.subscribed[kind].size === 0) {
    const etag = state.lastRead[kind];
    await forward(ctx, `mcpd/${kind}/subscribe`, etag === undefined ? {} : { etag }, extra);
  }
  state.subscribed[kind].add(uri);
  return {};
}

export async function unsubscribeContextUri(ctx: GatewayContext, uri: string, extra: ForwardExtra): Promise<Record<string, never>> {
  const kind = contextKindOf(uri);
  if (!kind) throw toJsonRpcError(new Error(`${uri} is not a context URI`));
  const state = stateOf(ctx);
  if (state.subscribed[kind].delete(uri) && state.subscribed[kind].size === 0) await forward(ctx, `mcpd/${kind}/unsubscribe`, {}, extra);
  return {};
}

export function contextTools(): Tool[] {
  return [
    {
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
    },
  ];
}

export function isContextTool(name: string): boolean {
  return name === FINDER_TOOL;
}

/** tools/call of mcpd_finder; bad arguments come back as a tool error the model can read. */
export async function callContextTool(ctx: GatewayContext, name: string, args: JsonObject, extra: ForwardExtra): Promise<CallToolResult> {
  if (name !== FINDER_TOOL) throw toJsonRpcError(new Error(`${name} is not a context tool`));
  try {
    const v = await forward(ctx, 'mcpd/finder/query', args, extra);
    return { content: [{ type: 'text', text: JSON.stringify(v) }], structuredContent: v };
  } catch (e) {
    return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
  }
}

/** Core notifications and reconnects for the context URIs; the resources area serves the requests. */
export function contextArea(): GatewayArea {
  return {
    capabilities: {},
    register(ctx) {
      const state = stateOf(ctx);
      ctx.onCoreNotification(CONTEXT_UPDATED, (params) => {
        const kind = params.kind;
        if (kind !== 'desktop' && kind !== 'finder') return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        for (const uri of state.subscribed[kind]) void ctx.server.notify('notifications/resources/updated', { uri }).catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect) return;
        // A new core knows nothing of our watches: open them again, reporting what changed meanwhile.
        for (const kind of ['desktop', 'finder'] as const) {
          if (state.subscribed[kind].size === 0) continue;
          const etag = state.lastRead[kind];
          session
            .request(`mcpd/${kind}/subscribe`, etag === undefined ? {} : { etag })
            .catch((e: Error) => ctx.log(`re-subscribing the ${kind} failed: ${e.message}`));
        }
      });
    },
  };
}

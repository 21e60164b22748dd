/**
 * The context channels as MCP resources and a tool, answered by the core for every face (the gateway
 * forwards, the dashboard and mcpdctl ask the core): `resources/read` of `mcpd://desktop…` and
 * `mcpd://finder…`, `resources/subscribe` of them (one `notifications/resources/updated` with the URI
 * per change of the caller's view), `tools/call` of `mcpd_finder`, and the entries in the first page
 * of the caller's lists where its servers give them content.
 */
import { contextKindOf, parseContextUri, renderDesktopText } from '../domain/context-uri.js';
import type { ContextApi, ContextChange, FinderQuery, Paged, ResourcesApi, Subscription } from '../../contract/control/control-areas.js';
import { optionalInt, optionalString, optionalStrings } from '../../contract/areas/params.js';
import type { ContextChannels } from '../../contract/control/context-channels.js';
import type { JsonObject } from '../../shared/json.js';
import { contextResourceEntries, contextTemplateEntries } from './context-entries.js';

export class ContextSurface {
  /** Per caller: the etag of the full desktop it last read, so a subscription reports changes since. */
  private readonly lastRead = new Map<string, string>();

  constructor(private readonly context: ContextApi) {}

  /** `resources/read` of a context URI (bad query keys and values are INVALID_ARGUMENT naming them). */
  async read(caller: string, uri: string): Promise<JsonObject> {
    const parsed = parseContextUri(uri);
    if (parsed.kind === 'finder') {
      const v = await this.finderView(caller, finderQuery(parsed.params));
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(v) }] };
    }
    const size = optionalInt(parsed.params, 'size');
    const window = optionalString(parsed.params, 'window');
    const v = await this.context.desktop(caller, size, window);
    if (size === undefined && window === undefined) this.lastRead.set(caller, v.etag);
    const json = parsed.format === 'json';
    const text = json ? JSON.stringify({ windows: v.windows, warnings: v.warnings, etag: v.etag }) : renderDesktopText(v.windows);
    return {
      contents: [{ uri, mimeType: json ? 'application/json' : 'text/plain', text }],
      _meta: { 'mcpd/etag': v.etag, 'mcpd/warnings': v.warnings },
    };
  }

  /** `tools/call` of mcpd_finder; bad arguments come back as a tool error the model can read. */
  async callFinder(caller: string, args: JsonObject): Promise<JsonObject> {
    try {
      const v = await this.finderView(caller, finderQuery(args));
      return { content: [{ type: 'text', text: JSON.stringify(v) }], structuredContent: v };
    } catch (e) {
      return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
    }
  }

  /**
   * `resources/subscribe` of a context URI: `{uri}` on every change of the caller's view. The current
   * view comes first and is reported only when it differs from the desktop the caller last read.
   */
  subscribe(caller: string, uri: string, signal: AbortSignal): Subscription<JsonObject> {
    const kind = parseContextUri(uri).kind;
    const watch = kind === 'desktop' ? this.context.watchDesktop(caller) : this.context.watchFinder(caller);
    return updatesOf(watch, uri, kind === 'desktop' ? this.lastRead.get(caller) : undefined, signal);
  }

  private async finderView(caller: string, query: FinderQuery): Promise<JsonObject> {
    const v = await this.context.finder(caller, query);
    return { documents: v.documents, total_count: v.totalCount };
  }
}

/** Finder params as MCP gives them (`keywords`, `file_type`, `offset`, `limit`), checked by name. */
function finderQuery(params: JsonObject): FinderQuery {
  return {
    keywords: optionalStrings(params, 'keywords'),
    fileType: optionalString(params, 'file_type'),
    offset: optionalInt(params, 'offset'),
    limit: optionalInt(params, 'limit'),
  };
}

async function* updatesOf(watch: Subscription<ContextChange>, uri: string, known: string | undefined, signal: AbortSignal) {
  // Ending the watch ends the loop below, whether it waits for a change or not.
  const stop = (): void => void watch.return?.();
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  try {
    let first = true;
    for await (const change of watch) {
      const skip = first && (known === undefined || known === change.etag);
      first = false;
      if (!skip) yield { uri } as JsonObject;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}

/**
 * The caller's resources with the context channels: their entries first on the first page of each
 * list, their URIs read and subscribed here; everything else goes to `inner`.
 */
export function withContextChannels(inner: ResourcesApi, surface: ContextSurface): ResourcesApi {
  const first = async <T>(caller: string, cursor: string | undefined, page: Paged<T>, entries: (c: ContextChannels) => T[]) =>
    cursor ? page : { ...page, items: [...entries(await inner.channels(caller)), ...page.items] };
  return {
    list: async (caller, cursor, size) => first(caller, cursor, await inner.list(caller, cursor, size), contextResourceEntries),
    listTemplates: async (caller, cursor, size) =>
      first(caller, cursor, await inner.listTemplates(caller, cursor, size), contextTemplateEntries),
    watch: (caller, etag) => inner.watch(caller, etag),
    read: (caller, uri, opts) => (contextKindOf(uri) ? surface.read(caller, uri) : inner.read(caller, uri, opts)),
    subscribe: async (caller, uri, signal) =>
      contextKindOf(uri) ? surface.subscribe(caller, uri, signal) : inner.subscribe(caller, uri, signal),
    channels: (caller) => inner.channels(caller),
  };
}

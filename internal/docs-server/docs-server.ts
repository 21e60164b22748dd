import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isDpeError } from '../contract/finder/dpe-error.js';
import { readDpeResource, type DpeDocumentSource } from './domain/dpe-read.js';
import { buildDpeUri } from './domain/dpe-uri-build.js';
import { parseDpeUri } from '../contract/finder/dpe-uri.js';

const DOCS_SERVER_VERSION = '0.1.0';

/**
 * The MCP face of the document folders: every document is a dpe:// resource, read at levels 0–3.
 * Finder errors 4201–4204 become JSON-RPC errors with the same code and the details in `data`.
 */
export class DocsMcpServer {
  readonly server: Server;
  /** Subscribed URIs exactly as the client sent them → parsed doc_ref (undefined = the catalogue). */
  private readonly subs = new Map<string, string | undefined>();

  /**
   * `scanned` settles when the folders' first scan is done: listings and reads wait for it, while
   * `initialize` is answered at once, so no file (however slow to parse) holds a client's start.
   */
  constructor(
    readonly host: string,
    private readonly source: DpeDocumentSource,
    private readonly log: (msg: string) => void,
    private readonly scanned: Promise<void> = Promise.resolve(),
  ) {
    this.server = new Server(
      { name: 'mcpd-docs', version: DOCS_SERVER_VERSION },
      { capabilities: { resources: { subscribe: true, listChanged: true } } },
    );
    this.register();
  }

  private register(): void {
    const s = this.server;
    s.setRequestHandler(ListResourcesRequestSchema, async () => {
      await this.scanned;
      return { resources: this.listed() };
    });
    s.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: [
        {
          uriTemplate: `dpe://${this.host}/{doc_ref}/pages/{page_index}`,
          name: 'page',
          description: 'A page of a document (Level 2); add ?format=markdown|text, ?categories=...',
          mimeType: 'application/json',
        },
        {
          uriTemplate: `dpe://${this.host}/{doc_ref}/elements/{element_id}`,
          name: 'element',
          description: 'One element of a document (Level 3)',
          mimeType: 'application/json',
        },
      ],
    }));
    s.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      await this.scanned;
      return { contents: [this.read(req.params.uri)] };
    });
    s.setRequestHandler(SubscribeRequestSchema, (req) => {
      const p = this.parse(req.params.uri);
      if (p.host !== this.host) {
        throw new McpError(4201, `cannot subscribe to ${req.params.uri}: this server serves dpe://${this.host}, not "${p.host}"`, {
          host: p.host,
          served_host: this.host,
        });
      }
      this.subs.set(req.params.uri, p.docRef);
      return {};
    });
    s.setRequestHandler(UnsubscribeRequestSchema, (req) => {
      this.subs.delete(req.params.uri);
      return {};
    });
  }

  private listed(): { uri: string; name: string; title: string; mimeType: string; description?: string }[] {
    return [...this.source.all()]
      .sort((a, b) => (a.doc_ref < b.doc_ref ? -1 : a.doc_ref > b.doc_ref ? 1 : 0))
      .map((d) => ({
        uri: buildDpeUri(this.host, d.doc_ref),
        name: d.doc_ref,
        title: d.title,
        mimeType: 'application/json',
        ...(d.summary ? { description: d.summary } : {}),
      }));
  }

  private read(uri: string): { uri: string; mimeType: string; text: string } {
    try {
      return readDpeResource(this.host, this.source, uri);
    } catch (e) {
      throw toMcpError(e, uri);
    }
  }

  private parse(uri: string): ReturnType<typeof parseDpeUri> {
    try {
      return parseDpeUri(uri);
    } catch (e) {
      throw toMcpError(e, uri);
    }
  }

  async listChanged(): Promise<void> {
    await this.server.sendResourceListChanged().catch((e: unknown) => this.log(`list_changed not sent: ${String(e)}`));
  }

  /** Notifies subscribers of the document (at any level) and of the catalogue. */
  async documentUpdated(docRef: string): Promise<void> {
    for (const [uri, ref] of this.subs) {
      if (ref !== undefined && ref !== docRef) continue;
      await this.server.sendResourceUpdated({ uri }).catch((e: unknown) => this.log(`resources/updated for ${uri} not sent: ${String(e)}`));
    }
  }
}

function toMcpError(e: unknown, uri: string): McpError {
  if (isDpeError(e)) return new McpError(e.code, e.message, e.data);
  return new McpError(ErrorCode.InternalError, `reading ${uri} failed: ${(e as Error)?.message ?? String(e)}`, { uri });
}

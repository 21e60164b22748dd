import type { JsonObject } from '../../../shared/json.js';
import type { AppFrame } from '../../../contract/dashboard/dashboard-events.js';
import type { DashboardCore } from './dashboard-port.js';
import type { AppFrames } from './app-frames.js';
import { appCsp, declaredCsp } from './app-csp.js';
import { framedHtml } from './app-html.js';
import { APP_MIME_TYPE as APP_MIME } from '../../../contract/model/mcp-apps.js';
/** Larger than any single-file app we know of (the official examples are about 230 kB). */
const MAX_HTML_BYTES = 5 * 1024 * 1024;

/**
 * Prepares the MCP App a tool of the caller links: the tool as the caller's listing has it, its
 * `_meta.ui.resourceUri`, the resource read through the door as the caller (so the door's interceptors and
 * the caller's profile apply), its declared CSP checked, and the page left in `frames` for one load.
 */
export async function prepareAppFrame(
  core: DashboardCore,
  frames: AppFrames,
  caller: string,
  toolName: string,
  signal: AbortSignal,
): Promise<AppFrame> {
  const tool = await findTool(core, caller, toolName);
  const uri = resourceUriOf(toolName, tool.definition);
  await checkOwner(core, caller, uri, tool.server);
  const read = await core.resources.read(caller, uri, { signal });
  const contents = Array.isArray(read.contents) ? (read.contents as JsonObject[]) : [];
  const content = contents.find((c) => c.uri === uri) ?? contents[0];
  if (!content) throw new Error(`app-frame: ${uri} (server "${tool.server}") has no contents`);
  const mime = String(content.mimeType ?? '');
  if (mime.replace(/\s+/g, '').toLowerCase() !== APP_MIME)
    throw new Error(`app-frame: ${uri} is ${JSON.stringify(mime)}, not ${APP_MIME}: the server must serve its app's HTML as ${APP_MIME}`);
  const html = htmlOf(uri, content);
  const csp = declaredCsp(uri, content._meta);
  const ui = (content._meta as { ui?: { permissions?: unknown; prefersBorder?: unknown } } | undefined)?.ui;
  const permissions = ui?.permissions && typeof ui.permissions === 'object' ? Object.keys(ui.permissions) : [];
  const src = frames.add({ html: framedHtml(html), csp: appCsp(csp) }, { caller, tool: toolName, uri, server: tool.server });
  return {
    src,
    uri,
    server: tool.server,
    csp,
    permissions,
    ...(typeof ui?.prefersBorder === 'boolean' ? { prefersBorder: ui.prefersBorder } : {}),
  };
}

async function findTool(core: DashboardCore, caller: string, name: string) {
  let cursor: string | undefined;
  do {
    const page = await core.listTools(caller, cursor);
    const hit = page.tools.find((t) => t.name === name);
    if (hit) return hit;
    cursor = page.nextCursor;
  } while (cursor);
  throw new Error(`app-frame: caller "${caller}" sees no tool "${name}"`);
}

/** `_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`. */
function resourceUriOf(tool: string, definition: JsonObject): string {
  const meta = (definition._meta ?? {}) as { ui?: { resourceUri?: unknown }; 'ui/resourceUri'?: unknown };
  const uri = meta.ui?.resourceUri ?? meta['ui/resourceUri'];
  if (uri === undefined) throw new Error(`app-frame: tool "${tool}" links no MCP App (its definition has no _meta.ui.resourceUri)`);
  if (typeof uri !== 'string' || !uri.startsWith('ui://'))
    throw new Error(`app-frame: tool "${tool}" has _meta.ui.resourceUri ${JSON.stringify(uri)}, which is not a ui:// URI`);
  return uri;
}

/**
 * The door routes a URI to the server that lists it. When another server of the caller lists the same URI
 * (the official examples all use ui://get-time/mcp-app.html), the read would bring that server's app: refuse.
 */
async function checkOwner(core: DashboardCore, caller: string, uri: string, server: string): Promise<void> {
  let cursor: string | undefined;
  const owners = new Set<string>();
  do {
    const page = await core.resources.list(caller, cursor);
    for (const r of page.items) if (r.uri === uri) owners.add(r.server);
    cursor = page.nextCursor;
  } while (cursor);
  if (owners.size > 1 || (owners.size === 1 && !owners.has(server)))
    throw new Error(
      `app-frame: ${uri} is listed by server "${[...owners].join('", "')}", so the door may not read it from the tool's server "${server}": give the servers whose apps share this URI to different profiles`,
    );
}

function htmlOf(uri: string, content: JsonObject): string {
  const html =
    typeof content.text === 'string'
      ? content.text
      : typeof content.blob === 'string'
        ? Buffer.from(content.blob, 'base64').toString('utf8')
        : undefined;
  if (html === undefined) throw new Error(`app-frame: ${uri} has neither text nor blob`);
  if (Buffer.byteLength(html) > MAX_HTML_BYTES) throw new Error(`app-frame: ${uri} is larger than ${MAX_HTML_BYTES} bytes`);
  return html;
}

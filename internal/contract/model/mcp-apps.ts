import type { JsonObject } from '../../shared/json.js';

/** The MCP Apps extension's identifier (MCP Apps specification 2026-01-26, "Extension Identifier"). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP App's HTML ("UI Resource Format"): the one content type the specification defines. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * What the core declares to the servers it runs, under `capabilities.extensions` (both eras: in the
 * 2025-11-25 `initialize` and in every 2026-07-28 request's client capabilities). The dashboard hosts apps,
 * so a server that registers its app tools only for hosts that render them registers them for mcpd.
 */
export const UI_EXTENSION_SETTINGS: JsonObject = { mimeTypes: [APP_MIME_TYPE] };

/** Who may see and call a tool ("Visibility"): its `_meta.ui.visibility`, `["model", "app"]` when absent. */
export interface ToolAudience {
  /** Listed to, and callable by, the model (an MCP client's agent). */
  model: boolean;
  /** Callable by an app of the same server. */
  app: boolean;
}

/** Most tools say nothing: one shared answer, since the door asks for every call. */
const EVERYONE: Readonly<ToolAudience> = Object.freeze({ model: true, app: true });

/** A `visibility` that is not an array of strings is taken as absent: the tool stays as every client had it. */
export function toolAudience(definition: JsonObject): Readonly<ToolAudience> {
  const meta = definition._meta as { ui?: { visibility?: unknown } } | undefined;
  const v = meta?.ui?.visibility;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return EVERYONE;
  return { model: v.includes('model'), app: v.includes('app') };
}

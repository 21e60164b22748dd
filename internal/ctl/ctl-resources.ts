import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { renderTable, firstLine, truncate } from './table.js';

const parse = (b: Buffer): Record<string, unknown> => JSON.parse(b.toString('utf8')) as Record<string, unknown>;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Every page of a listing (the cursor pins one snapshot, so the pages are consistent). */
async function allPages<T, R extends { nextCursor: string; etag: string }>(
  fetch: (cursor: string) => Promise<R>,
  items: (r: R) => T[],
): Promise<{ etag: string; items: T[] }> {
  const out: T[] = [];
  let cursor = '';
  let etag = '';
  do {
    const page = await fetch(cursor);
    out.push(...items(page));
    cursor = page.nextCursor;
    etag = page.etag;
  } while (cursor);
  return { etag, items: out };
}

/** Every resource and template of the caller, each list in full. */
async function listAll(client: ControlPlaneClient, caller: string) {
  const res = await allPages(
    (cursor) =>
      callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((r, cb) => client.listResources(r, cb), { caller, cursor, pageSize: 0 }),
    (r) => r.resources,
  );
  const tpl = await allPages(
    (cursor) =>
      callUnary<pb.ListResourceTemplatesRequest, pb.ListResourceTemplatesResponse>((r, cb) => client.listResourceTemplates(r, cb), {
        caller,
        cursor,
        pageSize: 0,
      }),
    (r) => r.templates,
  );
  return { res, tpl };
}

/**
 * `mcpdctl resources <caller>`: resources and resource templates as the core lists them — what the
 * caller's MCP client lists, the Desktop and Finder entries included (where the caller has them).
 */
export async function resourcesCommand(client: ControlPlaneClient, caller: string, out: Out): Promise<void> {
  const { res, tpl } = await listAll(client, caller);
  if (out.json) {
    const resources = res.items.map((r) => ({ uri: r.uri, server: r.server, resource: parse(r.resourceJson) }));
    const templates = tpl.items.map((t) => ({ uriTemplate: t.uriTemplate, server: t.server, template: parse(t.templateJson) }));
    return out.write(`${JSON.stringify({ etag: res.etag, resources, templates }, null, 2)}\n`);
  }
  const rows = res.items.map((r) => {
    const d = parse(r.resourceJson);
    return [r.uri, r.server, text(d.mimeType), truncate(firstLine(text(d.description ?? d.name)), 60)];
  });
  out.write(renderTable(['URI', 'SERVER', 'MIME', 'DESCRIPTION'], rows));
  out.write(`${res.items.length} resources, etag ${res.etag}\n`);
  if (tpl.items.length === 0) return;
  out.write('\n');
  const trows = tpl.items.map((t) => {
    const d = parse(t.templateJson);
    return [t.uriTemplate, t.server, truncate(firstLine(text(d.description ?? d.name)), 60)];
  });
  out.write(renderTable(['TEMPLATE', 'SERVER', 'DESCRIPTION'], trows));
  out.write(`${tpl.items.length} templates\n`);
}

/** `mcpdctl read <caller> <uri>`: text contents as is, blobs summarised; --json prints the whole result. */
export async function readCommand(client: ControlPlaneClient, caller: string, uri: string, out: Out): Promise<void> {
  const r = await callUnary<pb.ReadResourceRequest, pb.ReadResourceResponse>((req, cb) => client.readResource(req, cb), { caller, uri });
  const result = parse(r.resultJson) as { contents?: { uri?: string; mimeType?: string; text?: string; blob?: string }[] };
  if (out.json) return out.write(`${JSON.stringify(result, null, 2)}\n`);
  for (const c of result.contents ?? []) {
    if (typeof c.text === 'string') out.write(c.text.endsWith('\n') ? c.text : `${c.text}\n`);
    else
      out.write(
        `[${c.mimeType ?? 'binary'} ${c.uri ?? uri}: ${Math.floor(((c.blob ?? '').length * 3) / 4)} bytes, use --json for the base64]\n`,
      );
  }
}

/** `mcpdctl prompts <caller>`. */
export async function promptsCommand(client: ControlPlaneClient, caller: string, out: Out): Promise<void> {
  const all = await allPages(
    (cursor) =>
      callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((r, cb) => client.listPrompts(r, cb), { caller, cursor, pageSize: 0 }),
    (r) => r.prompts,
  );
  if (out.json) {
    const prompts = all.items.map((p) => ({ name: p.name, server: p.server, prompt: parse(p.promptJson) }));
    return out.write(`${JSON.stringify({ etag: all.etag, prompts }, null, 2)}\n`);
  }
  const rows = all.items.map((p) => {
    const d = parse(p.promptJson) as { description?: string; arguments?: { name: string; required?: boolean }[] };
    const args = (d.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
    return [p.name, p.server, args, truncate(firstLine(d.description ?? ''), 50)];
  });
  out.write(renderTable(['PROMPT', 'SERVER', 'ARGUMENTS', 'DESCRIPTION'], rows));
  out.write(`${all.items.length} prompts, etag ${all.etag}\n`);
}

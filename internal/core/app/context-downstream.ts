/**
 * The few MCP requests the context channels send to a pooled server: list every resource (following
 * nextCursor), read one. Subscriptions go through the shared hub (ResourceSubscriptions). Kept apart from ContextSource so the fake PoolPort of the
 * unit tests only has to answer these.
 */
import { McpdError } from '../../shared/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import type { PoolPort } from './pool-port.js';

/** A server that pages forever (or repeats a cursor) must not hang the desktop. */
const MAX_LIST_PAGES = 1000;
/** Reads in flight per server while (re)loading; the pool bounds concurrency further. */
export const READ_CONCURRENCY = 8;

type Requester = Pick<PoolPort, 'request'>;

/** Every `Resource` of the server, in the order it listed them. */
export async function listAllResources(pools: Requester, fp: string, serverLabel: string): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const res = await pools.request(fp, 'resources/list', cursor === undefined ? {} : { cursor }, { forCache: true });
    const items = res.resources;
    if (!Array.isArray(items)) {
      throw new McpdError('DOWNSTREAM_ERROR', `server ${serverLabel} answered resources/list without a "resources" array`);
    }
    for (const r of items) if (isJsonObject(r) && typeof r.uri === 'string') out.push(r);
    const next = res.nextCursor;
    if (typeof next !== 'string' || next === '') return out;
    if (seen.has(next)) {
      throw new McpdError(
        'DOWNSTREAM_ERROR',
        `server ${serverLabel} repeated the resources/list cursor ${JSON.stringify(next)}; its listing never ends`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw new McpdError('DOWNSTREAM_ERROR', `server ${serverLabel} listed more than ${MAX_LIST_PAGES} pages of resources; stopped there`);
}

/** `ReadResourceResult.contents` of one URI. */
export async function readContents(pools: Requester, fp: string, uri: string): Promise<JsonValue | undefined> {
  const res = await pools.request(fp, 'resources/read', { uri }, {});
  return res.contents;
}

/** The first text content of a read, e.g. a DPE Level-1 JSON document. */
export function firstText(contents: JsonValue | undefined): string | undefined {
  if (!Array.isArray(contents)) return undefined;
  for (const c of contents) if (isJsonObject(c) && typeof c.text === 'string') return c.text;
  return undefined;
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const queue = items.entries();
  const worker = async (): Promise<void> => {
    for (const [i, item] of queue) out[i] = await fn(item, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import type { LanePool } from './lanes.js';
import { paramHeaderFault, paramHeadersOf, type ParamHeader } from './param-headers.js';

/** As long as a 2026 client may keep the tool list it built its headers from (results.ts's list TTL). */
const KEEP_MS = 60_000;

/**
 * The `x-mcp-header` declarations of the caller's tools, for checking each 2026-07-28 `tools/call`'s
 * `Mcp-Param-*` headers. Taken from the caller's tool list (on a lane, so it is exactly the list the
 * client gets) and kept for KEEP_MS; a call the kept list would refuse is checked again on a fresh
 * list, so a changed schema never refuses a call its client built correctly.
 */
export class ToolParamHeaders {
  private byTool?: Map<string, ParamHeader[]>;
  private takenAt = 0;
  private loading?: Promise<Map<string, ParamHeader[]>>;

  constructor(private readonly lanes: LanePool) {}

  /** Throws the -32020 EraError when the call's headers and arguments disagree. */
  async check(req: IncomingMessage, params: JsonObject): Promise<void> {
    const name = params.name;
    if (typeof name !== 'string') return;
    const args = isJsonObject(params.arguments) ? params.arguments : {};
    const kept = this.byTool !== undefined && Date.now() - this.takenAt < KEEP_MS;
    const first = kept ? this.byTool! : await this.load();
    if (!paramHeaderFault(req, first.get(name) ?? [], args)) return;
    const fresh = kept ? await this.load() : first;
    const fault = paramHeaderFault(req, fresh.get(name) ?? [], args);
    if (fault) throw fault;
  }

  private load(): Promise<Map<string, ParamHeader[]>> {
    this.loading ??= this.fetch().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async fetch(): Promise<Map<string, ParamHeader[]>> {
    const lane = await this.lanes.acquire();
    const byTool = new Map<string, ParamHeader[]>();
    try {
      let cursor: string | undefined;
      do {
        const page = await lane.transport.request('tools/list', cursor ? { cursor } : {}).response;
        if (page.error) throw new Error(`tools/list for the Mcp-Param-* check failed: ${page.error.message}`);
        const tools = Array.isArray(page.result?.tools) ? page.result.tools : [];
        for (const t of tools) {
          if (!isJsonObject(t) || typeof t.name !== 'string') continue;
          const declared = paramHeadersOf(t.inputSchema);
          if (declared.length > 0) byTool.set(t.name, declared);
        }
        cursor = typeof page.result?.nextCursor === 'string' ? page.result.nextCursor : undefined;
      } while (cursor);
    } finally {
      this.lanes.release(lane);
    }
    this.byTool = byTool;
    this.takenAt = Date.now();
    return byTool;
  }
}

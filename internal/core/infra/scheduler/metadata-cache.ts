import type { JsonObject } from '../../../shared/json.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import type { SavedList, SavedMetadata } from './metadata-store.js';
import { reuseUnchanged } from '../../domain/aggregator/unchanged-tools.js';

/**
 * Per-pool listing cache: lets tools/list answer while the pool is at zero instances.
 * Each fetch takes a sequence number so a slow, older fetch never overwrites a newer result.
 */
export class MetadataCache {
  tools?: DownstreamTool[];
  capabilities?: JsonObject;
  serverInfo?: JsonObject;
  /** Shared in-flight fetch, so concurrent first listings start one instance and one listing. */
  inflight?: Promise<DownstreamTool[]>;
  /** The tools came from disk (an earlier core): the first instance that starts lists them again. */
  restored = false;
  /** The other lists the core listed (resources, templates, prompts), kept on disk beside the tools. */
  lists: Partial<Record<SavedList, JsonObject[]>> = {};
  /** `lists` came from disk and no instance has run since: they answer listings until one lists them again. */
  listsRestored = false;
  private issued = 0;
  private applied = 0;

  nextSeq(): number {
    return ++this.issued;
  }

  restore(saved: SavedMetadata): void {
    this.tools = saved.tools;
    this.capabilities = saved.capabilities;
    this.serverInfo = saved.serverInfo;
    this.restored = true;
    this.lists = { ...saved.lists };
    this.listsRestored = Object.keys(this.lists).length > 0;
  }

  /** What goes to disk (tools are needed: a file without them would list the server anyway). */
  saved(): SavedMetadata | undefined {
    if (!this.tools) return undefined;
    return { tools: this.tools, capabilities: this.capabilities, serverInfo: this.serverInfo, lists: this.lists };
  }

  /** The tools are not to be offered: the next listing fetches them; an older fetch still running cannot put them back. */
  forgetTools(): void {
    this.tools = undefined;
    this.restored = false;
    this.applied = this.issued + 1;
  }

  /** Stores a fetch result; true when the cached list actually changed. */
  setTools(tools: DownstreamTool[], seq: number): boolean {
    if (seq < this.applied) return false;
    this.applied = seq;
    this.restored = false;
    const before = this.tools;
    // Unchanged tools keep their earlier objects: the snapshots and pins built from them share one copy.
    this.tools = reuseUnchanged(before, tools);
    return !before || !sameObjects(before, this.tools);
  }
}

/** Same tools in the same order: after reuseUnchanged an unchanged list is the very same objects. */
function sameObjects(a: readonly DownstreamTool[], b: readonly DownstreamTool[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

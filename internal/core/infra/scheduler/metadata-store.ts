import { rmSync } from 'node:fs';
import { readStateFile, stateFileIds, writeStateFile } from '../state-file.js';
import { join } from 'node:path';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';

/** The lists besides tools that a listing (or a client's first connection) needs without starting the server. */
const SAVED_LISTS = ['resources/list', 'resources/templates/list', 'prompts/list'] as const;
export type SavedList = (typeof SAVED_LISTS)[number];

/** What a pool knows about its server without running it. */
export interface SavedMetadata {
  tools: DownstreamTool[];
  capabilities?: JsonObject;
  serverInfo?: JsonObject;
  /**
   * The items of each list the core has listed (all pages, as the server sent them); a list not here was
   * never listed (its server is listed when it is first needed). Files of earlier cores have none.
   */
  lists?: Partial<Record<SavedList, JsonObject[]>>;
  /** An instance asked its client (sampling, elicitation, roots): each call gets an instance of its own. */
  asksClient?: boolean;
}

interface FileShape extends SavedMetadata {
  version: 1;
  fingerprint: string;
  savedAt: string;
}

const FINGERPRINT = /^[0-9a-f]{16,128}$/;

/** The largest cache file read (a server's whole tool list; real ones are a few hundred KiB at most). */
export const METADATA_FILE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The metadata cache on disk, one file per spec fingerprint in the state directory, so the first
 * listing after a core restart starts no server. A changed spec has another fingerprint, so it never
 * sees the old file; files of specs no longer configured are deleted. Files are the user's own (0600).
 */
export class MetadataStore {
  constructor(
    readonly dir: string,
    private readonly warn: (message: string, fields?: Record<string, unknown>) => void = () => {},
  ) {}

  load(fingerprint: string): SavedMetadata | undefined {
    if (!FINGERPRINT.test(fingerprint)) return undefined;
    const file = this.file(fingerprint);
    let text: string;
    try {
      text = readStateFile(file, METADATA_FILE_MAX_BYTES);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.warn('metadata cache file refused; it is removed and the server will be listed again', { file, error: (e as Error).message });
      rmSync(file, { force: true });
      return undefined;
    }
    try {
      const data = JSON.parse(text) as Partial<FileShape>;
      if (data.version !== 1 || data.fingerprint !== fingerprint || !Array.isArray(data.tools)) throw new Error('unexpected content');
      for (const t of data.tools) if (typeof t?.name !== 'string' || typeof t.definition !== 'object') throw new Error('malformed tool');
      if (data.asksClient !== undefined && typeof data.asksClient !== 'boolean') throw new Error('malformed asksClient');
      return {
        tools: data.tools,
        capabilities: data.capabilities,
        serverInfo: data.serverInfo,
        lists: checkedLists(data.lists),
        ...(data.asksClient ? { asksClient: true } : {}),
      };
    } catch (e) {
      // A damaged cache only costs one server start: drop it and list afresh.
      this.warn('metadata cache file unreadable; it is removed and the server will be listed again', { file, error: (e as Error).message });
      rmSync(file, { force: true });
      return undefined;
    }
  }

  save(fingerprint: string, meta: SavedMetadata): void {
    if (!FINGERPRINT.test(fingerprint)) return;
    const data: FileShape = { version: 1, fingerprint, savedAt: new Date().toISOString(), ...meta };
    try {
      // A full disk (or a rename that cannot happen) leaves no partial file behind.
      writeStateFile(this.file(fingerprint), JSON.stringify(data));
    } catch (e) {
      this.warn('saving the metadata cache failed; listings after a restart will start the server', {
        fingerprint,
        error: (e as Error).message,
      });
    }
  }

  /** Deletes the files of specs not in `keep`. */
  retain(keep: ReadonlySet<string>): void {
    for (const fp of stateFileIds(this.dir, FINGERPRINT)) if (!keep.has(fp)) rmSync(this.file(fp), { force: true });
  }

  private file(fingerprint: string): string {
    return join(this.dir, `${fingerprint}.json`);
  }
}

/** The saved lists as written; anything else in the file is damage (the caller drops the file). */
function checkedLists(lists: unknown): SavedMetadata['lists'] {
  if (lists === undefined) return undefined;
  if (!isJsonObject(lists)) throw new Error('malformed lists');
  const out: Partial<Record<SavedList, JsonObject[]>> = {};
  for (const name of SAVED_LISTS) {
    const items = lists[name];
    if (items === undefined) continue;
    if (!Array.isArray(items) || !items.every(isJsonObject)) throw new Error(`malformed ${name}`);
    out[name] = items;
  }
  return out;
}

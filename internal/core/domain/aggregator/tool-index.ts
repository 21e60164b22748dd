import type { DownstreamTool, ToolEntry, ToolSnapshot } from '../../../contract/model/tool.js';
import { NamedIndex, type NamedIndexOptions } from './named-index.js';
import { buildToolSnapshot } from './tool-snapshot.js';

export type ToolsByServer = ReadonlyMap<string, readonly DownstreamTool[]>;
export type ProfileIndexOptions = NamedIndexOptions;

const TOOLS_LISTING = 'tools';

/** One profile's tool listing: current snapshot, cursors over recent ones, watchers, name lookup. */
export class ProfileIndex extends NamedIndex<ToolsByServer, ToolSnapshot, ToolEntry> {
  constructor(opts: ProfileIndexOptions) {
    super(
      {
        listing: TOOLS_LISTING,
        noun: 'tool',
        empty: new Map(),
        build: buildToolSnapshot,
        items: (s) => s.tools,
        callable: (s) => s.catalog ?? s.tools,
      },
      opts,
    );
  }
}

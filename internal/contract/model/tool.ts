import type { JsonObject } from '../../shared/json.js';

/** A tool as the downstream server declared it (MCP `Tool`), kept opaque apart from its name. */
export interface DownstreamTool {
  name: string;
  /** The full MCP tool object, unchanged. */
  definition: JsonObject;
}

/** A tool in a caller's view: exposed name → owning server and downstream name. */
export interface ToolEntry {
  /** Name the caller sees (namespaced, shortened or aliased). */
  name: string;
  /** Server name in the profile. */
  server: string;
  /** Pool key of the owning server. */
  fingerprint: string;
  /** Name to call downstream. */
  downstreamName: string;
  /** MCP tool object with `name` replaced by the exposed name. */
  definition: JsonObject;
  /** sha256 of the downstream definition: surfaces silent definition changes. */
  definitionHash: string;
}

/** A name the index could not expose as asked, and what it did instead. */
export interface NameCollision {
  name: string;
  servers: string[];
  resolution: string;
}

/** Immutable, sorted by name; `etag` is a content hash. */
export interface ToolSnapshot {
  etag: string;
  tools: readonly ToolEntry[];
  collisions: readonly NameCollision[];
  /** Configuration the index could not honour (invalid aliases, unknown tool names …). */
  problems?: readonly ListingProblem[];
  /**
   * Tool search mode: every tool of the profile, callable by name and found by the search tool, while
   * `tools` holds only the search tool, the call tool and the pinned tools. Absent = `tools` is all.
   */
  catalog?: readonly ToolEntry[];
  /**
   * Servers of the profile whose tools are not listed yet (a new spec, being listed or about to be): they are
   * not in this snapshot yet, so a list without them may be a passing state, not a change.
   */
  loading?: readonly string[];
}

/** Something the index could not do as configured: reported in snapshots, never silently dropped. */
export interface ListingProblem {
  kind: 'invalid-alias' | 'unknown-tool' | 'duplicate-tool';
  /** Server in the profile the problem belongs to. */
  server: string;
  /** Downstream or configured name the problem is about. */
  name: string;
  message: string;
}

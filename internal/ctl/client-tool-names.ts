import type { ClientName } from './client-configs.js';

/**
 * How a client names the tools of the server entry it connects to mcpd (the entry is `mcpd`), and the
 * longest name it passes on. Measured from each client's source (docs/clients.md cites them):
 * - Claude Code: `mcp__<entry>__<tool>`, and the Anthropic API takes tool names of at most 64 characters.
 * - Codex: `mcp__<entry>__<tool>` (codex-rs/core/src/mcp_connection_manager.rs, `qualify_tools`,
 *   MAX_TOOL_NAME_LENGTH = 64; a longer name is cut and given a SHA-1 suffix, so it is kept within).
 * - Gemini CLI: `mcp_<entry>_<tool>` (packages/core/src/tools/mcp-tool.ts, MCP_TOOL_PREFIX and
 *   `generateValidName`, which cuts the middle of names over 63 characters).
 * Claude Desktop, Cursor and VS Code are absent: no prefix rule of theirs was documented or measured.
 */
export interface ToolNameRule {
  /** What the client puts before every tool name of the entry. */
  prefix: (entry: string) => string;
  /** The longest tool name the client passes to its model whole. */
  limit: number;
}

const RULES: Partial<Record<ClientName, ToolNameRule>> = {
  'claude-code': { prefix: (e) => `mcp__${e}__`, limit: 64 },
  codex: { prefix: (e) => `mcp__${e}__`, limit: 64 },
  'gemini-cli': { prefix: (e) => `mcp_${e}_`, limit: 63 },
};

export function toolNameRule(client: ClientName): ToolNameRule | undefined {
  return RULES[client];
}

/** The `namespace.reserve` that keeps `prefix + name` within the client's limit for a profile of `maxLength`. */
export function reserveFor(rule: ToolNameRule, entry: string, maxLength: number): number {
  return Math.max(0, maxLength - (rule.limit - rule.prefix(entry).length));
}

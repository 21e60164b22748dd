import type { ControlApi } from '../../contract/control/control.js';
import type { Profile } from '../../contract/model/profile.js';
import { computerConfig, type ComputerConfig } from '../domain/smcp-computer/computer-config.js';
import { mergedToolMeta, toSmcpTool } from '../domain/smcp-computer/smcp-tool.js';
import type { SMCPTool } from '../../contract/smcp/types.js';
import type { ToolEntry } from '../../contract/model/tool.js';
import { REDACTED, redactSpec } from '../../store/index.js';
import { CONTEXT_SERVER, FINDER_TOOL } from './context-entries.js';

/** Every tool of the caller's view, all pages of one snapshot. */
async function allTools(api: Pick<ControlApi, 'listTools'>, caller: string): Promise<ToolEntry[]> {
  const out: ToolEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.listTools(caller, cursor);
    out.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** `client:get_tools`: the caller's tools as SMCPTool, with the configured toolMeta / defaultToolMeta. */
export async function smcpTools(api: Pick<ControlApi, 'listTools'>, caller: string, profile: Profile): Promise<SMCPTool[]> {
  const specs = new Map(profile.servers.map((s) => [s.name, s]));
  // The Finder reaches an SMCP Agent as client:get_finder, not as the mcpd_finder tool the core lists.
  const tools = (await allTools(api, caller)).filter((t) => !(t.name === FINDER_TOOL && t.server === CONTEXT_SERVER));
  return tools.map((t) => {
    const spec = specs.get(t.server);
    return toSmcpTool(t.definition, mergedToolMeta(spec?.defaultToolMeta, spec?.toolMeta[t.downstreamName]));
  });
}

/** `client:get_config`: the caller's servers and inputs, secrets masked as in `mcpdctl status`. */
export function smcpConfig(profile: Profile): ComputerConfig {
  return computerConfig(profile.servers.map(redactSpec), profile.inputs, REDACTED);
}

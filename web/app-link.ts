import type { DashboardTool } from '../internal/contract/dashboard/dashboard-events.js';

/** The MCP App a tool links (`_meta.ui.resourceUri`, or the older flat `_meta["ui/resourceUri"]`), or undefined. */
export function appUriOf(tool: DashboardTool): string | undefined {
  const meta = tool.definition._meta as { ui?: { resourceUri?: unknown }; 'ui/resourceUri'?: unknown } | undefined;
  const uri = meta?.ui?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

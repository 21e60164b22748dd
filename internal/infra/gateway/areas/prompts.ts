import type { GatewayArea } from '../gateway-area.js';

/** The prompts part of the MCP surface (not served yet: no capability is advertised). */
export function promptsArea(): GatewayArea {
  return { capabilities: {}, register() {} };
}

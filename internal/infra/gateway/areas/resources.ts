import type { GatewayArea } from '../gateway-area.js';

/** The resources part of the MCP surface (not served yet: no capability is advertised). */
export function resourcesArea(): GatewayArea {
  return { capabilities: {}, register() {} };
}

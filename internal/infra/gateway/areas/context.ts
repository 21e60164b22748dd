import type { GatewayArea } from '../gateway-area.js';

/** The context part of the MCP surface (not served yet: no capability is advertised). */
export function contextArea(): GatewayArea {
  return { capabilities: {}, register() {} };
}

import type { GatewayArea } from '../gateway-area.js';

/** The logs part of the MCP surface (not served yet: no capability is advertised). */
export function logsArea(): GatewayArea {
  return { capabilities: {}, register() {} };
}

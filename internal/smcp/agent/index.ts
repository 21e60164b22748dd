/** `import { SmcpAgent } from "mcpd/smcp"`: the Agent client and the protocol's types, codes and event names. */
export { SmcpAgent, type SmcpAgentOptions, type FinderQuery } from './smcp-agent.js';
export { SmcpError } from './smcp-error.js';
export type { NotifyPayloads, RefreshEvents } from './notify-types.js';
export * from '../../contract/smcp/index.js';

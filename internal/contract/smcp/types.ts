/** TypeScript shapes of every A2C-SMCP payload (smcp-data-structures.md is normative; snake_case on the wire). */
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { DPEDocumentSummary } from '../finder/types.js';

export type SmcpRole = 'computer' | 'agent';

export interface AgentCallData {
  agent: string;
  req_id: string;
}

export interface ToolCallReq extends AgentCallData {
  computer: string;
  tool_name: string;
  params: JsonObject;
  /** Seconds (integer). */
  timeout: number;
}

/** `server:tool_call_cancel` / `notify:tool_call_cancel`: the agent and the req_id of the call to cancel. */
export type ToolCallCancel = AgentCallData;

export type AttributeValue = string | number | boolean | null | string[] | number[] | boolean[];
export type Attributes = Record<string, AttributeValue>;

export interface SMCPTool {
  name: string;
  description: string;
  params_schema: JsonObject;
  return_schema: JsonObject | null;
  /** `a2c_tool_meta` and `MCP_TOOL_ANNOTATION` are JSON strings; other keys come from the MCP server's `_meta`. */
  meta?: Attributes | null;
}

export interface ToolMeta {
  auto_apply?: boolean | null;
  ret_object_mapper?: JsonObject | null;
  alias?: string | null;
  tags?: string[] | null;
  [extra: string]: JsonValue | undefined;
}

export const A2C_TOOL_META = 'a2c_tool_meta';
export const MCP_TOOL_ANNOTATION = 'MCP_TOOL_ANNOTATION';

export interface GetToolsReq extends AgentCallData {
  computer: string;
}
export interface GetToolsRet {
  tools: SMCPTool[];
  req_id: string;
}

export interface EnterOfficeReq {
  role: SmcpRole;
  name: string;
  office_id: string;
}
export interface LeaveOfficeReq {
  office_id: string;
}
/** Exactly one of `computer` / `agent` names who entered. */
export interface EnterOfficeNotification {
  office_id: string;
  computer?: string | null;
  agent?: string | null;
}
export type LeaveOfficeNotification = EnterOfficeNotification;

/** The join/leave ack: two ack arguments on the wire, `[true, null]` or `[false, "[code] message"]`. */
export type OfficeAck = [ok: boolean, error: string | null];

export interface ListRoomReq extends AgentCallData {
  office_id: string;
}
export interface SessionInfo {
  sid: string;
  name: string;
  role: SmcpRole;
  office_id: string;
}
export interface ListRoomRet {
  sessions: SessionInfo[];
  req_id: string;
}

/** `server:find_computer` (our extension): which offices hold a computer of this name. */
export interface FindComputerReq extends AgentCallData {
  computer: string;
}
export interface FindComputerRet {
  /** Sorted; at most FIND_COMPUTER_MAX_OFFICES. */
  offices: string[];
  req_id: string;
}

/** Shared by `server:update_config|tool_list|desktop|finder` and their `notify:*`. */
export interface UpdateComputerConfigReq {
  computer: string;
}
export type UpdateMCPConfigNotification = UpdateComputerConfigReq;
export type UpdateToolListNotification = UpdateComputerConfigReq;
export type UpdateDesktopNotification = UpdateComputerConfigReq;
export type UpdateFinderNotification = UpdateComputerConfigReq;

export interface GetComputerConfigReq extends AgentCallData {
  computer: string;
}
export interface GetComputerConfigRet {
  inputs?: MCPServerInput[] | null;
  servers: Record<string, MCPServerConfig>;
}

export interface BaseMCPServerConfig {
  name: string;
  disabled: boolean;
  forbidden_tools: string[];
  tool_meta: Record<string, ToolMeta>;
  default_tool_meta?: ToolMeta | null;
  vrl?: string | null;
}
export interface MCPServerStdioParameters {
  command: string;
  args: string[];
  env: Record<string, string> | null;
  cwd: string | null;
  encoding: string;
  encoding_error_handler: 'strict' | 'ignore' | 'replace';
}
export interface MCPServerStdioConfig extends BaseMCPServerConfig {
  type: 'stdio';
  server_parameters: MCPServerStdioParameters;
}
export interface MCPServerStreamableHttpParameters {
  url: string;
  headers: Record<string, JsonValue> | null;
  /** ISO-8601 duration. */
  timeout: string;
  /** ISO-8601 duration. */
  sse_read_timeout: string;
  terminate_on_close: boolean;
}
export interface MCPServerStreamableHttpConfig extends BaseMCPServerConfig {
  type: 'streamable';
  server_parameters: MCPServerStreamableHttpParameters;
}
export interface MCPSSEParameters {
  url: string;
  headers: Record<string, JsonValue> | null;
  /** Seconds. */
  timeout: number;
  /** Seconds. */
  sse_read_timeout: number;
}
export interface MCPSSEConfig extends BaseMCPServerConfig {
  type: 'sse';
  server_parameters: MCPSSEParameters;
}
export type MCPServerConfig = MCPServerStdioConfig | MCPServerStreamableHttpConfig | MCPSSEConfig;

interface MCPServerInputBase {
  id: string;
  description: string;
}
export interface MCPServerPromptStringInput extends MCPServerInputBase {
  type: 'promptString';
  default?: string | null;
  password?: boolean | null;
}
export interface MCPServerPickStringInput extends MCPServerInputBase {
  type: 'pickString';
  options: string[];
  default?: string | null;
}
export interface MCPServerCommandInput extends MCPServerInputBase {
  type: 'command';
  command: string;
  args?: Record<string, string> | null;
}
export type MCPServerInput = MCPServerPromptStringInput | MCPServerPickStringInput | MCPServerCommandInput;

export interface GetDeskTopReq extends AgentCallData {
  computer: string;
  desktop_size?: number;
  window?: string;
}
/** One rendered window: `{window:// URI}` or `{window:// URI}\n\n{body}`. */
export type Desktop = string;
export interface GetDeskTopRet {
  desktops: Desktop[];
  req_id: string;
}

export interface GetFinderReq extends AgentCallData {
  computer: string;
  keywords?: string[];
  file_type?: string;
  offset?: number;
  limit?: number;
}
export interface GetFinderRet {
  documents: DPEDocumentSummary[];
  total_count: number;
  req_id: string;
}

/** `client:read_resource` (our extension): an MCP `resources/read` of `uri` on the named computer. */
export interface ReadResourceReq extends AgentCallData {
  computer: string;
  uri: string;
}
/** MCP `ReadResourceResult`, kept opaque beyond its contents list. */
export interface ReadResourceRet {
  contents: JsonObject[];
  [extra: string]: JsonValue;
}

/** MCP `CallToolResult` as a computer acks `client:tool_call`; cancellation sets `_meta.a2c_cancelled`. */
export interface CallToolResult {
  content: JsonValue[];
  isError?: boolean;
  structuredContent?: JsonObject;
  _meta?: JsonObject;
  [extra: string]: JsonValue | undefined;
}

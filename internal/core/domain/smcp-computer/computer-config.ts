import type { InputDef } from '../../../contract/model/profile.js';
import type { ServerSpec, ToolMeta } from '../../../contract/model/spec.js';

/** smcp-data-structures.md: ToolMeta as the wire carries it. */
interface WireToolMeta {
  auto_apply?: boolean;
  alias?: string;
  tags?: string[];
}

/** One MCPServerConfig (stdio / streamable / sse) plus the base fields. */
type WireServerConfig = Record<string, unknown> & { name: string; type: 'stdio' | 'streamable' | 'sse' };

export interface ComputerConfig {
  inputs: Record<string, unknown>[];
  servers: Record<string, WireServerConfig>;
}

/** The reference SDK's SSE read timeout (5 minutes), which we have no setting for. */
const SSE_READ_TIMEOUT_SECONDS = 300;

function wireMeta(m: ToolMeta): WireToolMeta {
  return {
    ...(m.autoApply !== undefined ? { auto_apply: m.autoApply } : {}),
    ...(m.alias !== undefined ? { alias: m.alias } : {}),
    ...(m.tags !== undefined ? { tags: m.tags } : {}),
  };
}

function parameters(s: ServerSpec): { type: WireServerConfig['type']; server_parameters: Record<string, unknown> } {
  if (s.transport === 'stdio') {
    const [command = '', ...args] = s.cmd;
    return {
      type: 'stdio',
      server_parameters: { command, args, env: s.env, cwd: s.cwd ?? null, encoding: 'utf-8', encoding_error_handler: 'strict' },
    };
  }
  if (s.transport === 'sse') {
    return {
      type: 'sse',
      server_parameters: {
        url: s.url ?? '',
        headers: s.headers,
        timeout: s.callTimeoutSeconds,
        sse_read_timeout: SSE_READ_TIMEOUT_SECONDS,
      },
    };
  }
  // The Python model serialises these timedeltas as ISO-8601 durations.
  return {
    type: 'streamable',
    server_parameters: {
      url: s.url ?? '',
      headers: s.headers,
      timeout: `PT${s.callTimeoutSeconds}S`,
      sse_read_timeout: `PT${SSE_READ_TIMEOUT_SECONDS}S`,
      terminate_on_close: true,
    },
  };
}

/** A server of the caller's profile as an MCPServerConfig. Pass a redacted spec: this copies values as they are. */
function serverConfig(s: ServerSpec): WireServerConfig {
  return {
    name: s.name,
    disabled: s.disabled,
    forbidden_tools: s.forbiddenTools,
    tool_meta: Object.fromEntries(Object.entries(s.toolMeta).map(([k, m]) => [k, wireMeta(m)])),
    ...(s.defaultToolMeta ? { default_tool_meta: wireMeta(s.defaultToolMeta) } : {}),
    ...parameters(s),
  };
}

/** An input definition as MCPServerInput; a password input's default is a secret and is masked. */
function inputConfig(i: InputDef, mask: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...i, description: i.description ?? '' };
  if (i.type === 'promptString' && i.password && i.default !== undefined) out.default = mask;
  return out;
}

export function computerConfig(servers: readonly ServerSpec[], inputs: readonly InputDef[], mask: string): ComputerConfig {
  return {
    inputs: inputs.map((i) => inputConfig(i, mask)),
    servers: Object.fromEntries(servers.map((s) => [s.name, serverConfig(s)])),
  };
}

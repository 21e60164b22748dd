import type { Face } from '../../../contract/control/control.js';
import { toolAudience } from '../../../contract/model/mcp-apps.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { DoorCall, Interceptor } from './interceptor.js';

/**
 * The faces whose tool lists reach a model: an MCP client's agent through mcpdmcp (both eras) and SMCP
 * agents through the Computer. The dashboard hosts apps (an app's calls are its calls) and gRPC serves
 * operators and programs, which get each definition's `_meta.ui.visibility` and decide for themselves.
 */
const MODEL_FACES: ReadonlySet<Face> = new Set<Face>(['session', 'smcp']);

/** The methods whose entries are tools: the lists, the watches, and a call's own answers (tool search's hits). */
const TOOL_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/watch', 'tools/call']);

/**
 * MCP Apps' app-only tools (`_meta.ui.visibility` without "model"): left out of the tools a model gets,
 * and a model's call of one is refused, on the faces that serve models.
 */
export function appOnlyInterceptor(): Interceptor {
  return {
    name: 'app-only',
    visible: (call, _name, definition) => !(definition && forModel(call) && TOOL_METHODS.has(call.method) && appOnly(definition)),
    admit: (call, tool) => (forModel(call) && appOnly(tool.definition) ? refusal(call, tool) : undefined),
  };
}

function forModel(call: DoorCall): boolean {
  return MODEL_FACES.has(call.face);
}

function appOnly(definition: JsonObject): boolean {
  return !toolAudience(definition).model;
}

function refusal(call: DoorCall, tool: ToolEntry): McpdError {
  const visibility = (tool.definition._meta as { ui?: { visibility?: unknown } }).ui?.visibility;
  return new McpdError(
    'PERMISSION_DENIED',
    `tool ${tool.name} is for its MCP App only (its _meta.ui.visibility is ${JSON.stringify(visibility)}): ` +
      `${call.caller}'s model may not call it; the app calls it from a host that renders it, such as the mcpd dashboard`,
  );
}

import { McpdError } from '../../internal/domain/errors.js';
import { DEFAULT_NAMESPACE, type NamespacePolicy, type Profile } from '../../internal/domain/profile.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../internal/domain/spec.js';
import type { DownstreamTool } from '../../internal/domain/tool.js';

/** Test support for the index tests: minimal specs, profiles, tools, and a caught McpdError. */
export function spec(name: string, over: Partial<ServerSpec> = {}): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name,
    transport: 'stdio',
    cmd: ['x'],
    env: {},
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
    ...over,
  };
}

export function profile(servers: ServerSpec[], namespace: NamespacePolicy = DEFAULT_NAMESPACE, name = 'dev'): Profile {
  return { name, file: `/${name}.yaml`, servers, inputs: [], namespace };
}

export function tool(name: string, description = `does ${name}`): DownstreamTool {
  return { name, definition: { name, description, inputSchema: { type: 'object' } } };
}

export function caught(f: () => unknown): McpdError {
  try {
    f();
  } catch (e) {
    if (e instanceof McpdError) return e;
    throw e;
  }
  throw new Error('expected an McpdError');
}

import { DEFAULT_NAMESPACE, type NamespacePolicy, type Profile } from '../../internal/contract/model/profile.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../internal/contract/model/spec.js';

/** A complete ServerSpec as the store loader would produce it: stdio `x` unless `over` says otherwise. */
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

/** A remote (streamable HTTP) server at `url`. */
export function httpSpec(name: string, url: string, over: Partial<ServerSpec> = {}): ServerSpec {
  return spec(name, { transport: 'streamable_http', url, cmd: [], ...over });
}

/** A loaded profile of `servers` (file `/<name>.yaml`). */
export function profile(servers: ServerSpec[], namespace: NamespacePolicy = DEFAULT_NAMESPACE, name = 'dev'): Profile {
  return { name, file: `/${name}.yaml`, servers, inputs: [], namespace };
}

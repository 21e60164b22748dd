import { McpdError } from '../../internal/shared/errors.js';
import type { DownstreamTool } from '../../internal/contract/model/tool.js';

// Specs and profiles are built the same way for every unit test (server-specs.ts).
export { profile, spec } from './server-specs.js';

/** Test support for the index tests: tools and a caught McpdError. */
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

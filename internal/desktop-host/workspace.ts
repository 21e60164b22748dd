import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { BridgeError } from '../contract/desktop-bridge/errors.js';

/** True when `inner` is `outer` or lies below it (both already real paths). */
export function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

/**
 * Contract 2.1: realpath(workspacePath) must lie under realpath(WORKSPACE_ROOT). realpath resolves
 * every symlink and `..`, so a link inside the root pointing outside is refused like a plain `../`.
 * A path that does not exist is refused too: evidence could not be written there.
 */
export async function resolveWorkspace(rootReal: string, workspacePath: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(workspacePath);
  } catch (e) {
    throw new BridgeError('DESKTOP_WORKSPACE_FORBIDDEN', `workspacePath ${workspacePath} cannot be resolved: ${(e as Error).message}`, {
      workspacePath,
      workspaceRoot: rootReal,
    });
  }
  if (!isWithin(rootReal, real))
    throw new BridgeError(
      'DESKTOP_WORKSPACE_FORBIDDEN',
      `workspacePath ${workspacePath} resolves to ${real}, outside the workspace root ${rootReal}; use a directory under the root`,
      { workspacePath, resolved: real, workspaceRoot: rootReal },
    );
  return real;
}

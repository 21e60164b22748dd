import type { ServerSpec } from '../../../contract/model/spec.js';
import { packageCommand, pinnedCommand } from '../../../store/package-command.js';
import { packageChanged, readPackagePin, resolvePackage, writePackagePin } from '../../../store/package-pins.js';
import { McpdError } from '../../../shared/errors.js';

/**
 * The command a server is started with: an npx, uvx or pipx package is resolved once to a version and its registry
 * integrity, recorded in the state directory, and started only at that version after. When what the
 * profile asks for resolves to another version (or the same version to another integrity), the start is
 * refused until `mcpdctl update SERVER` accepts it.
 */
export async function pinnedCmd(spec: ServerSpec, stateDir: string | undefined, onEvent?: (m: string) => void): Promise<string[]> {
  const p = stateDir ? packageCommand(spec.cmd) : undefined;
  if (!p || !stateDir) return spec.cmd;
  const pin = readPackagePin(stateDir, spec.name);
  if (pin && pin.name === p.name && pin.requested === p.requested) return pinnedCommand(spec.cmd, p, pin.version);
  // The server's own env may name its registry or index (npm_config_registry, UV_DEFAULT_INDEX…).
  const now = await resolvePackage(p, { ...process.env, ...spec.env });
  if (pin && (pin.name !== p.name || pin.version !== now.version || pin.integrity !== now.integrity)) {
    throw new McpdError('FAILED_PRECONDITION', packageChanged(spec.name, pin, now));
  }
  writePackagePin(stateDir, spec.name, now);
  onEvent?.(`server ${spec.name}: package ${p.name}@${p.requested} pinned to ${now.version} (${now.integrity})`);
  return pinnedCommand(spec.cmd, p, now.version);
}

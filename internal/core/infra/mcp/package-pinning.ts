import type { ServerSpec } from '../../../contract/model/spec.js';
import { specFingerprint } from '../../../contract/model/fingerprint.js';
import { packageCommand, pinnedCommand, type PackageCommand, type PackagePin } from '../../../store/package-command.js';
import { packageChanged, readPackagePin, resolvePackage, writePackagePin } from '../../../store/package-pins.js';
import { filesChanged, recheckPackage } from '../../../store/package-recheck.js';
import { McpdError } from '../../../shared/errors.js';

/**
 * Pins checked against their registry in this core run, by pool (spec fingerprint), server and pin: a
 * pool's first start asks the registry, its later instances do not. A check in flight is shared.
 */
export type CheckedPins = Map<string, Promise<void>>;

/**
 * The command a server is started with: an npx, uvx or pipx package is resolved once to a version and its registry
 * integrity, recorded in the state directory, and started only at that version after. When what the
 * profile asks for resolves to another version, or the registry now gives the recorded version another
 * integrity, the start is refused until `mcpdctl update SERVER` accepts it.
 */
export async function pinnedCmd(
  spec: ServerSpec,
  stateDir: string | undefined,
  checked: CheckedPins,
  onEvent?: (m: string) => void,
): Promise<string[]> {
  const p = stateDir ? packageCommand(spec.cmd) : undefined;
  if (!p || !stateDir) return spec.cmd;
  // The server's own env may name its registry or index (npm_config_registry, UV_DEFAULT_INDEX…).
  const env = { ...process.env, ...spec.env };
  const pin = readPackagePin(stateDir, spec.name);
  if (pin && pin.name === p.name && pin.requested === p.requested) {
    await checkOnce(checked, keyOf(spec, pin), () => recheck(spec.name, p, pin, env, onEvent));
    return pinnedCommand(spec.cmd, p, pin.version);
  }
  const now = await resolvePackage(p, env);
  if (pin && (pin.name !== p.name || pin.version !== now.version || pin.integrity !== now.integrity)) {
    throw new McpdError('FAILED_PRECONDITION', packageChanged(spec.name, pin, now));
  }
  writePackagePin(stateDir, spec.name, now);
  // Just resolved: this pool need not ask again.
  checked.set(keyOf(spec, now), Promise.resolve());
  onEvent?.(`server ${spec.name}: package ${p.name}@${p.requested} pinned to ${now.version} (${now.integrity})`);
  return pinnedCommand(spec.cmd, p, now.version);
}

const keyOf = (spec: ServerSpec, pin: PackagePin): string => `${specFingerprint(spec)} ${spec.name} ${pin.version} ${pin.integrity}`;

/** Runs `check` once per key; a failed one is forgotten, so the pool's next start asks again. */
async function checkOnce(checked: CheckedPins, key: string, check: () => Promise<boolean>): Promise<void> {
  let running = checked.get(key);
  if (!running) {
    running = check().then((verified) => {
      if (!verified) checked.delete(key);
    });
    checked.set(key, running);
    running.catch(() => checked.delete(key));
  }
  await running;
}

/**
 * Asks the registry again about the recorded version. True when it answered the recorded integrity; false
 * when it could not be asked (the recorded pin starts, and the next instance asks again: decision 74).
 */
async function recheck(
  server: string,
  p: PackageCommand,
  pin: PackagePin,
  env: NodeJS.ProcessEnv,
  onEvent?: (m: string) => void,
): Promise<boolean> {
  const r = await recheckPackage(p, pin, env);
  if (r.kind === 'same') return true;
  if (r.kind === 'changed') throw new McpdError('FAILED_PRECONDITION', `${packageChanged(server, pin, r.now)}${filesChanged(pin, r.now)}`);
  if (r.kind === 'gone')
    throw new McpdError(
      'FAILED_PRECONDITION',
      `cannot start server ${server}: its registry no longer has the approved version ${pin.name}@${pin.version} (${pin.integrity}): ${r.why}; see and accept what it resolves to now with "mcpdctl update ${server}"`,
    );
  onEvent?.(
    `server ${server}: could not check ${pin.name}@${pin.version} against its registry (${r.why}); starting the recorded pin (${pin.integrity}) unchecked`,
  );
  return false;
}

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageCommand, PackagePin } from './package-command.js';
import { resolveNpm } from './npm-resolve.js';
import { resolvePypi, type ResolveOptions } from './pypi-resolve.js';

/** `<state dir>/packages/<server>.json`: the version and integrity a server's npx package is started at. */
const fileOf = (stateDir: string, server: string): string => join(stateDir, 'packages', `${encodeURIComponent(server)}.json`);

export function readPackagePin(stateDir: string, server: string): PackagePin | undefined {
  try {
    return JSON.parse(readFileSync(fileOf(stateDir, server), 'utf8')) as PackagePin;
  } catch {
    // No record yet: the package is resolved on its first start.
    return undefined;
  }
}

export function writePackagePin(stateDir: string, server: string, pin: PackagePin): void {
  mkdirSync(join(stateDir, 'packages'), { recursive: true, mode: 0o700 });
  const file = fileOf(stateDir, server);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(pin, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** What the package's registry says `requested` means now: npm for npx, the PyPI JSON API for uvx and pipx. */
export function resolvePackage(p: PackageCommand, env: NodeJS.ProcessEnv = process.env, opts: ResolveOptions = {}): Promise<PackagePin> {
  return p.runner === 'npx' ? resolveNpm(p, env, opts) : resolvePypi(p, env, opts);
}

/** The refusal when what the profile asks for now is not what was approved. */
export function packageChanged(server: string, pin: PackagePin, now: PackagePin): string {
  const what =
    now.version !== pin.version
      ? `version ${pin.version} → ${now.version}`
      : `integrity of ${pin.version} ${pin.integrity} → ${now.integrity}`;
  return `cannot start server ${server}: its package ${pin.name} changed since it was approved (${what}); see and accept the change with "mcpdctl update ${server}"`;
}

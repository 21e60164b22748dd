import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpdError } from '../shared/errors.js';
import type { PackageCommand, PackagePin } from './package-command.js';
import { resolvePypi } from './pypi-resolve.js';

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
export function resolvePackage(p: PackageCommand, env: NodeJS.ProcessEnv = process.env): Promise<PackagePin> {
  return p.runner === 'npx' ? resolveNpm(p, env) : resolvePypi(p, env);
}

/**
 * Asks the npm registry (through npm itself, so .npmrc, the registry setting and its credentials apply)
 * which version `requested` means now and that version's integrity hash.
 */
function resolveNpm(p: Extract<PackageCommand, { runner: 'npx' }>, env: NodeJS.ProcessEnv = process.env): Promise<PackagePin> {
  const spec = `${p.name}@${p.requested}`;
  return new Promise((resolve, reject) => {
    execFile('npm', ['view', spec, 'version', 'dist.integrity', '--json'], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) {
        const why = stderr.split('\n').find((l) => /error/i.test(l)) ?? err.message;
        reject(new McpdError('UNAVAILABLE', `cannot resolve npm package ${spec}: ${why.trim()}`));
        return;
      }
      try {
        // One version: an object; a range matching several: an array of them, the last the highest.
        const parsed = JSON.parse(stdout) as
          { version: string; 'dist.integrity': string } | { version: string; 'dist.integrity': string }[];
        const last = Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed;
        if (!last?.version || !last['dist.integrity']) throw new Error('no version or integrity in the answer');
        resolve({
          registry: 'npm',
          name: p.name,
          requested: p.requested,
          version: last.version,
          integrity: last['dist.integrity'],
          resolvedAt: new Date().toISOString(),
        });
      } catch (e) {
        reject(new McpdError('UNAVAILABLE', `cannot resolve npm package ${spec}: ${(e as Error).message}`));
      }
    });
  });
}

/** The refusal when what the profile asks for now is not what was approved. */
export function packageChanged(server: string, pin: PackagePin, now: PackagePin): string {
  const what =
    now.version !== pin.version
      ? `version ${pin.version} → ${now.version}`
      : `integrity of ${pin.version} ${pin.integrity} → ${now.integrity}`;
  return `cannot start server ${server}: its package ${pin.name} changed since it was approved (${what}); see and accept the change with "mcpdctl update ${server}"`;
}

import { execFile } from 'node:child_process';
import { McpdError } from '../shared/errors.js';
import type { PackageCommand, PackagePin } from './package-command.js';
import type { ResolveOptions } from './pypi-resolve.js';

type NpxPackage = Extract<PackageCommand, { runner: 'npx' }>;

/**
 * Asks the npm registry (through npm itself, so .npmrc, the registry setting and its credentials apply)
 * which version `requested` means now and that version's integrity hash. The registry saying it has no
 * such package or version is NOT_FOUND; no answer at all (network, timeout, a 5xx, credentials) is UNAVAILABLE.
 */
export function resolveNpm(p: NpxPackage, env: NodeJS.ProcessEnv = process.env, opts: ResolveOptions = {}): Promise<PackagePin> {
  const spec = `${p.name}@${p.requested}`;
  // A re-check on a server's start should fail fast when offline: npm's retries would hold the start minutes.
  const quick = opts.quick ? ['--fetch-retries=0', '--fetch-timeout=15000'] : [];
  return new Promise((resolve, reject) => {
    execFile('npm', ['view', spec, 'version', 'dist.integrity', '--json', ...quick], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) {
        const why = stderr.split('\n').find((l) => /error/i.test(l)) ?? err.message;
        const code = /npm error code (\S+)/.exec(stderr)?.[1];
        reject(new McpdError(code === 'E404' ? 'NOT_FOUND' : 'UNAVAILABLE', `cannot resolve npm package ${spec}: ${why.trim()}`));
        return;
      }
      try {
        resolve(pinOf(p, stdout));
      } catch (e) {
        reject(new McpdError('UNAVAILABLE', `cannot resolve npm package ${spec}: ${(e as Error).message}`));
      }
    });
  });
}

/** `npm view --json`'s answer: one version is an object; a range matching several, an array, the last the highest. */
function pinOf(p: NpxPackage, stdout: string): PackagePin {
  const parsed = JSON.parse(stdout) as { version: string; 'dist.integrity': string } | { version: string; 'dist.integrity': string }[];
  const last = Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed;
  if (!last?.version || !last['dist.integrity']) throw new Error('no version or integrity in the answer');
  return {
    registry: 'npm',
    name: p.name,
    requested: p.requested,
    version: last.version,
    integrity: last['dist.integrity'],
    resolvedAt: new Date().toISOString(),
  };
}

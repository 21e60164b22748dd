import { readFileSync } from 'node:fs';

/** The package version, read once from package.json beside the build output or the sources. */
export function packageVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mcpd' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0-unknown';
}

import { pinnedPythonCommand, pythonPackageCommand, type PythonPackageCommand } from './python-package-command.js';

/**
 * Which package a stdio server's command starts through npx (`npx [-y|--yes] PKG[@SPEC] args…`), uvx or
 * pipx (python-package-command.ts), so that mcpd can pin it to one version and its registry integrity
 * (docs/sandbox.md, _Packages pinned_). Pure: no I/O.
 */
export type PackageCommand = NpxPackageCommand | PythonPackageCommand;

interface NpxPackageCommand {
  runner: 'npx';
  /** Index in cmd of the package argument. */
  index: number;
  name: string;
  /** What the profile asks for: a range, a tag, or an exact version; "latest" when absent. */
  requested: string;
}

const NPX_FLAGS_WITH_VALUE = new Set(['-p', '--package', '-c', '--call']);

/** The npx, uvx or pipx package of `cmd`, or undefined when it is not such a start of a registry package. */
export function packageCommand(cmd: readonly string[]): PackageCommand | undefined {
  const program = cmd[0]?.split('/').pop();
  if (program !== 'npx') return pythonPackageCommand(cmd);
  for (let i = 1; i < cmd.length; i++) {
    const a = cmd[i] as string;
    if (NPX_FLAGS_WITH_VALUE.has(a)) return undefined; // --package/--call forms: not pinned (yet)
    if (a.startsWith('-')) continue;
    const parsed = splitSpec(a);
    return parsed ? { runner: 'npx', index: i, ...parsed } : undefined;
  }
  return undefined;
}

/** `@scope/name@spec` / `name@spec` / `name`; undefined for paths, URLs, git and file specs. */
function splitSpec(arg: string): { name: string; requested: string } | undefined {
  if (/^[./~]|:/.test(arg)) return undefined;
  const at = arg.indexOf('@', arg.startsWith('@') ? 1 : 0);
  const name = at < 0 ? arg : arg.slice(0, at);
  const requested = at < 0 ? 'latest' : arg.slice(at + 1);
  if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name) || requested === '') return undefined;
  return { name, requested };
}

/** The command with the package argument replaced by `name@version`. */
export function pinnedCommand(cmd: readonly string[], p: PackageCommand, version: string): string[] {
  if (p.runner !== 'npx') return pinnedPythonCommand(cmd, p, version);
  const out = [...cmd];
  out[p.index] = `${p.name}@${version}`;
  return out;
}

/** A package resolved once and recorded: what a server is started at from then on. */
export interface PackagePin {
  /** Absent in records written before PyPI packages were pinned: npm. */
  registry?: 'npm' | 'pypi';
  name: string;
  requested: string;
  version: string;
  /**
   * npm: the registry's `dist.integrity` (an SRI hash of the tarball). PyPI: `sha256-…` over the sorted
   * `filename sha256` lines of the release's files (listed in `files`).
   */
  integrity: string;
  /** PyPI: each file of the release and its sha256 digest. */
  files?: Record<string, string>;
  resolvedAt: string;
}

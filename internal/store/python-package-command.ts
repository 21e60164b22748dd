/**
 * Which PyPI package a stdio server's command starts through uvx (`uvx PKG[@V|==V] …`, `uvx --from SPEC CMD …`,
 * `uv tool run …`) or pipx (`pipx run PKG …`, `pipx run --spec SPEC APP …`), so that mcpd can pin it to one
 * version and its files' sha256 digests (docs/sandbox.md, _Packages pinned_). Pure: no I/O.
 */

/** A PyPI requirement as written: `name[extras]` and what it asks for (`latest`, `==1.2`, `>=1,<2`). */
interface PythonRequirement {
  name: string;
  extras: string;
  requested: string;
}

/** Where in cmd the requirement sits and how the pinned command is written back. */
export interface PythonPackageCommand extends PythonRequirement {
  runner: 'uvx' | 'pipx';
  index: number;
  /** `tool`: `uvx PKG` / `pipx run PKG` (the app is the package); `from`/`spec`: the value of --from/--spec. */
  form: 'tool' | 'from' | 'spec';
  /** For `--from=SPEC`: the argument carries the flag too. */
  inline: boolean;
}

// uv's options that take a value as the next argument: the package is the first argument that is neither.
const UV_FLAGS_WITH_VALUE = new Set([
  '--with',
  '-w',
  '--with-editable',
  '--with-requirements',
  '--python',
  '-p',
  '--index',
  '--default-index',
  '--index-url',
  '-i',
  '--extra-index-url',
  '--find-links',
  '-f',
  '--constraints',
  '-c',
  '--overrides',
  '--build-constraints',
  '-b',
  '--cache-dir',
  '--directory',
  '--project',
  '--config-file',
  '--color',
  '--env-file',
  '--python-platform',
  '--resolution',
  '--prerelease',
  '--exclude-newer',
  '--index-strategy',
  '--keyring-provider',
  '--link-mode',
  '--reinstall-package',
  '--refresh-package',
  '--upgrade-package',
  '-P',
  '--no-build-package',
  '--no-binary-package',
  '--allow-insecure-host',
  '--config-setting',
  '-C',
]);
const PIPX_FLAGS_WITH_VALUE = new Set(['--python', '--pip-args', '--index-url', '-i', '--backend']);

/** The uvx/pipx package of `cmd`, or undefined when it is not such a start of a registry package. */
export function pythonPackageCommand(cmd: readonly string[]): PythonPackageCommand | undefined {
  const program = cmd[0]?.split('/').pop();
  if (program === 'uvx') return scan(cmd, 1, 'uvx');
  if (program === 'uv' && cmd[1] === 'tool' && cmd[2] === 'run') return scan(cmd, 3, 'uvx');
  if (program === 'pipx' && cmd[1] === 'run') return scan(cmd, 2, 'pipx');
  return undefined;
}

function scan(cmd: readonly string[], from: number, runner: 'uvx' | 'pipx'): PythonPackageCommand | undefined {
  const withValue = runner === 'uvx' ? UV_FLAGS_WITH_VALUE : PIPX_FLAGS_WITH_VALUE;
  const specFlag = runner === 'uvx' ? '--from' : '--spec';
  const form = runner === 'uvx' ? 'from' : 'spec';
  for (let i = from; i < cmd.length; i++) {
    const a = cmd[i] as string;
    if (a === specFlag) return found(cmd[i + 1], runner, i + 1, form, false, runner === 'uvx');
    if (a.startsWith(`${specFlag}=`)) return found(a.slice(specFlag.length + 1), runner, i, form, true, runner === 'uvx');
    if (a === '--') return found(cmd[i + 1], runner, i + 1, 'tool', false, runner === 'uvx');
    if (withValue.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return found(a, runner, i, 'tool', false, runner === 'uvx');
  }
  return undefined;
}

function found(
  arg: string | undefined,
  runner: 'uvx' | 'pipx',
  index: number,
  form: PythonPackageCommand['form'],
  inline: boolean,
  atVersion: boolean,
): PythonPackageCommand | undefined {
  const req = arg === undefined ? undefined : parseRequirement(arg, atVersion);
  return req ? { runner, index, form, inline, ...req } : undefined;
}

/**
 * `name`, `name[extra]`, `name==1.2`, `name>=1,<2`, and (uvx) `name@1.2`; undefined for paths, URLs, VCS
 * and file specs, environment markers, and anything else that is not a plain registry requirement.
 */
function parseRequirement(arg: string, atVersion = false): PythonRequirement | undefined {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\[[A-Za-z0-9._,-]+\])?\s*(.*)$/.exec(arg.trim());
  if (!m) return undefined;
  const [, name = '', extras = '', rest = ''] = m;
  if (rest === '') return { name, extras, requested: 'latest' };
  if (atVersion && rest.startsWith('@')) {
    const v = rest.slice(1);
    return v === 'latest'
      ? { name, extras, requested: 'latest' }
      : /^[\w.!+-]+$/.test(v)
        ? { name, extras, requested: `==${v}` }
        : undefined;
  }
  const clauses = rest.split(',').map((c) => c.trim());
  if (!clauses.every((c) => /^(==|!=|>=|<=|~=|>|<)\s*[\w.*!+-]+$/.test(c))) return undefined;
  return { name, extras, requested: clauses.map((c) => c.replace(/\s+/g, '')).join(',') };
}

/** The command with the requirement replaced by `name[extras]` at exactly `version`. */
export function pinnedPythonCommand(cmd: readonly string[], p: PythonPackageCommand, version: string): string[] {
  const exact = `${p.name}${p.extras}==${version}`;
  const out = [...cmd];
  if (p.form !== 'tool') {
    out[p.index] = p.inline ? `${p.runner === 'uvx' ? '--from' : '--spec'}=${exact}` : exact;
    return out;
  }
  if (p.runner === 'uvx' && p.extras === '') {
    // uvx's own form for a version of the tool named like its package.
    out[p.index] = `${p.name}@${version}`;
    return out;
  }
  if (p.runner === 'uvx') {
    out.splice(p.index, 1, '--from', exact, p.name);
    return out;
  }
  // pipx run APP: the app is named like the package; --spec fixes which version provides it.
  out.splice(p.index, 1, '--spec', exact, p.name);
  return out;
}

import { createHash } from 'node:crypto';
import { McpdError } from '../shared/errors.js';
import type { PackagePin } from './package-command.js';
import type { PythonPackageCommand } from './python-package-command.js';
import { highestMatching } from './python-versions.js';

/** One file of a release as PyPI's JSON API gives it. */
interface PypiFile {
  filename: string;
  digests: { sha256?: string };
  yanked?: boolean;
}
interface PypiProject {
  info: { version: string };
  urls: PypiFile[];
  releases?: Record<string, PypiFile[]>;
}

/**
 * The JSON API's root for the index a uvx/pipx start would use: `UV_DEFAULT_INDEX`, `UV_INDEX_URL` or
 * `PIP_INDEX_URL` (a Warehouse-style index serves `/pypi/NAME/json` beside `/simple/`), else pypi.org.
 */
export function pypiJsonRoot(env: NodeJS.ProcessEnv): string {
  const index = env.UV_DEFAULT_INDEX || env.UV_INDEX_URL || env.PIP_INDEX_URL || 'https://pypi.org/simple/';
  return index.replace(/\/+$/, '').replace(/\/simple$/, '');
}

export interface ResolveOptions {
  /** A re-check on a server's start: fail fast when the registry does not answer (15 s, no retries). */
  quick?: boolean;
}

/** The index saying it has no such project or release is NOT_FOUND; no answer (network, timeout, 5xx, 401) is UNAVAILABLE. */
async function getJson(url: string, what: string, opts: ResolveOptions): Promise<PypiProject> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(opts.quick ? 15_000 : 60_000), headers: { accept: 'application/json' } });
  } catch (e) {
    throw new McpdError('UNAVAILABLE', `cannot resolve PyPI package ${what}: ${url}: ${(e as Error).message}`);
  }
  if (!res.ok)
    throw new McpdError(
      res.status === 404 ? 'NOT_FOUND' : 'UNAVAILABLE',
      `cannot resolve PyPI package ${what}: ${url} answered ${res.status}`,
    );
  try {
    return (await res.json()) as PypiProject;
  } catch (e) {
    throw new McpdError('UNAVAILABLE', `cannot resolve PyPI package ${what}: ${url}: not JSON (${(e as Error).message})`);
  }
}

/**
 * The sha256 digests of a release's files (wheels and sdist), and one hash over them all: which file uv
 * or pip downloads depends on the platform, so the pin covers every one.
 */
function integrityOf(files: readonly PypiFile[], what: string): { integrity: string; files: Record<string, string> } {
  const usable = files.filter((f) => f.digests.sha256 && !f.yanked);
  if (usable.length === 0)
    throw new McpdError('NOT_FOUND', `cannot resolve PyPI package ${what}: the release has no file with a sha256 digest`);
  const pairs = usable.map((f): [string, string] => [f.filename, f.digests.sha256 as string]);
  const byName = Object.fromEntries(pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  const lines = Object.entries(byName)
    .map(([f, d]) => `${f} ${d}\n`)
    .join('');
  return { integrity: `sha256-${createHash('sha256').update(lines).digest('base64')}`, files: byName };
}

/** Asks the index's JSON API which version `requested` means now and the digests of that version's files. */
export async function resolvePypi(
  p: PythonPackageCommand,
  env: NodeJS.ProcessEnv = process.env,
  opts: ResolveOptions = {},
): Promise<PackagePin> {
  const what = `${p.name}${p.requested === 'latest' ? '' : p.requested}`;
  const root = `${pypiJsonRoot(env)}/pypi/${encodeURIComponent(p.name)}`;
  let version: string;
  let files: PypiFile[];
  if (p.requested === 'latest') {
    const project = await getJson(`${root}/json`, what, opts);
    version = project.info.version;
    files = project.urls;
  } else {
    const exact = /^==([\w.!+-]+)$/.exec(p.requested)?.[1];
    if (exact) version = exact;
    else {
      const releases = (await getJson(`${root}/json`, what, opts)).releases ?? {};
      const live = Object.keys(releases).filter((v) => (releases[v] ?? []).some((f) => !f.yanked));
      const chosen = highestMatching(live, p.requested);
      if (!chosen) throw new McpdError('NOT_FOUND', `cannot resolve PyPI package ${what}: no release matches ${p.requested}`);
      version = chosen;
    }
    const release = await getJson(`${root}/${encodeURIComponent(version)}/json`, what, opts);
    files = release.urls;
  }
  return {
    registry: 'pypi',
    name: p.name,
    requested: p.requested,
    version,
    ...integrityOf(files, `${p.name}==${version}`),
    resolvedAt: new Date().toISOString(),
  };
}

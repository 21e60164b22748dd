import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import type { ConfigIssue } from '../../domain/errors.js';
import { DEFAULT_PROFILE, type Profile, type ProfileStore } from '../../domain/profile.js';
import type { ServerSpec } from '../../domain/spec.js';
import { parseCallers } from './callers_parse.js';
import { inputResolver } from './input_resolver.js';
import { NAME_HINT, isValidName } from './names.js';
import { parseProfile } from './profile_parse.js';
import { parseRuntime, type ParsedRuntime } from './runtime_parse.js';
import { scaffoldStore } from './scaffold.js';
import { buildServer } from './server_build.js';
import { parseSource, type Source } from './source.js';
import { didYouMean } from './suggest.js';
import type { LoadOptions, LoadResult } from './types.js';

/** Always the absolute store directory, so profiles can point at files next to them. */
export const STORE_DIR_VARIABLE = 'MCPD_STORE_DIR';
const PROFILE_EXTENSIONS = ['.yaml', '.yml'];

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function fileIssue(file: string, message: string, hint: string): ConfigIssue {
  return { file, line: 1, field: '', message, hint };
}

async function readSource(file: string, issues: ConfigIssue[]): Promise<Source | undefined> {
  try {
    return parseSource(file, await readFile(file, 'utf8'));
  } catch (e) {
    issues.push(fileIssue(file, `cannot read file: ${(e as Error).message}`, 'check that the file exists and is readable'));
    return undefined;
  }
}

/** profile name → file; invalid and duplicate names are reported. */
async function listProfiles(dir: string, issues: ConfigIssue[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const profilesDir = join(dir, 'profiles');
  if (!(await exists(profilesDir))) return out;
  const entries = (await readdir(profilesDir, { withFileTypes: true }))
    .filter((e) => e.isFile() && !e.name.startsWith('.') && PROFILE_EXTENSIONS.includes(extname(e.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const file = join(profilesDir, e.name);
    const name = e.name.slice(0, -extname(e.name).length);
    if (!isValidName(name)) {
      issues.push(
        fileIssue(file, `"${name}" is not a valid profile name (profile names come from file names)`, `rename the file; ${NAME_HINT}`),
      );
    } else if (out.has(name)) {
      issues.push(fileIssue(file, `profile "${name}" is defined twice (also in ${out.get(name)})`, 'keep only one of the two files'));
    } else {
      out.set(name, file);
    }
  }
  return out;
}

async function loadProfile(
  name: string,
  file: string,
  dir: string,
  rt: ParsedRuntime,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
  warnings: ConfigIssue[],
): Promise<Profile | undefined> {
  const src = await readSource(file, issues);
  if (!src) return undefined;
  if (src.broken) {
    issues.push(...src.issues);
    return undefined;
  }
  const parsed = parseProfile(src);
  const inputs = parsed.inputs.map((i) => i.def);
  const ctx = {
    file,
    variable: (n: string) => (n === STORE_DIR_VARIABLE ? dir : env[n]),
    publicVariables: new Set([STORE_DIR_VARIABLE]),
    input: inputResolver({ defs: inputs, values: rt.inputValues, env, cwd: dir }),
    issues: src.issues,
  };
  const servers: ServerSpec[] = [];
  for (const raw of parsed.servers) {
    const spec = await buildServer(raw, ctx, dir);
    if (spec) servers.push(spec);
  }
  issues.push(...src.issues);
  warnings.push(...src.warnings);
  return { name, file, servers, inputs, namespace: parsed.namespace };
}

async function loadCallers(file: string, profiles: ReadonlySet<string>, issues: ConfigIssue[]): Promise<Map<string, string>> {
  const callers = new Map<string, string>();
  if (!(await exists(file))) return callers;
  const src = await readSource(file, issues);
  if (!src) return callers;
  for (const ref of src.broken ? [] : parseCallers(src)) {
    callers.set(ref.caller, ref.profile);
    if (profiles.has(ref.profile)) continue;
    const known = [...profiles].sort();
    src.issues.push({
      file,
      line: ref.where.line,
      column: ref.where.column,
      field: ref.where.field,
      message: `caller "${ref.caller}" maps to profile "${ref.profile}", which does not exist`,
      hint: `${didYouMean(ref.profile, known)}create profiles/${ref.profile}.yaml or use one of: ${known.join(', ') || '(none)'}`,
    });
  }
  issues.push(...src.issues);
  return callers;
}

async function loadRuntime(dir: string, issues: ConfigIssue[]): Promise<ParsedRuntime> {
  const file = join(dir, 'runtime.yaml');
  const src = (await exists(file)) ? await readSource(file, issues) : undefined;
  if (!src) return parseRuntime(parseSource(file, ''), dir);
  const rt = parseRuntime(src.broken ? parseSource(file, '') : src, dir);
  issues.push(...src.issues);
  return rt;
}

function byPosition(a: ConfigIssue, b: ConfigIssue): number {
  return a.file.localeCompare(b.file) || a.line - b.line || (a.column ?? 0) - (b.column ?? 0);
}

/**
 * Loads `callers.yaml`, `profiles/*.yaml` and `runtime.yaml` from `dir`, expanding placeholders.
 * Every problem in every file is reported at once.
 */
export async function loadStore(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const abs = resolve(dir);
  const env = opts.env ?? process.env;
  if (await isFile(abs)) return loadCatalogFile(abs, env);
  const callersFile = join(abs, 'callers.yaml');
  const hasStore = (await exists(join(abs, 'profiles'))) || (await exists(callersFile));
  if (!hasStore) {
    if (!opts.scaffold) {
      return {
        ok: false,
        issues: [
          fileIssue(
            abs,
            'no profile store here: there is neither a profiles/ directory nor callers.yaml',
            'point --config at a profile store, or start mcpd once in this directory to create a starter store',
          ),
        ],
      };
    }
    await scaffoldStore(abs);
  }
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const files = await listProfiles(abs, issues);
  const rt = await loadRuntime(abs, issues);
  const profiles = new Map<string, Profile>();
  for (const [name, file] of files) {
    const p = await loadProfile(name, file, abs, rt, env, issues, warnings);
    if (p) profiles.set(name, p);
  }
  if (!files.has(DEFAULT_PROFILE)) {
    issues.push(
      fileIssue(
        join(abs, 'profiles', `${DEFAULT_PROFILE}.yaml`),
        'the required profile "default" is missing',
        'create profiles/default.yaml (it may hold just "servers: []"); unknown callers use it',
      ),
    );
  }
  const callers = await loadCallers(callersFile, new Set(files.keys()), issues);
  if (issues.length) return { ok: false, issues: issues.sort(byPosition) };
  const store: ProfileStore = { dir: abs, profiles, callers, runtime: rt.runtime };
  return { ok: true, store, warnings: warnings.sort(byPosition) };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * A single catalog file given as the store (`--config servers.yaml`): it is the `default` profile —
 * every caller gets it — with default runtime settings; relative paths are relative to its folder.
 * The store's `dir` stays the file, so reloads and the watcher follow that file.
 */
async function loadCatalogFile(file: string, env: NodeJS.ProcessEnv): Promise<LoadResult> {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const base = dirname(file);
  const rt = parseRuntime(parseSource(join(base, 'runtime.yaml'), ''), base);
  const profile = await loadProfile(DEFAULT_PROFILE, file, base, rt, env, issues, warnings);
  if (issues.length || !profile) return { ok: false, issues: issues.sort(byPosition) };
  const store: ProfileStore = { dir: file, profiles: new Map([[DEFAULT_PROFILE, profile]]), callers: new Map(), runtime: rt.runtime };
  return { ok: true, store, warnings: warnings.sort(byPosition) };
}

/** For `mcpd validate --config DIR`: every error in the store, empty when it loads. */
export async function validateStoreDir(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<ConfigIssue[]> {
  const r = await loadStore(dir, { env, scaffold: false });
  return r.ok ? [] : r.issues;
}

import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import type { ConfigIssue } from '../shared/errors.js';
import { DEFAULT_PROFILE, type Profile, type ProfileStore } from '../contract/model/profile.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { parseCallers, type CallerRef } from './callers-parse.js';
import { policiesOf } from './policy-parse.js';
import type { PolicyRule } from '../contract/model/policy.js';
import { MIN_NAME_BUDGET } from '../contract/model/naming.js';
import { DEFERRED_INPUT, deferredInputs, inputResolver } from './input-resolver.js';
import { foreignControl } from '../shared/file-trust.js';
import { NAME_HINT, isValidName } from './names.js';
import { parseProfile } from './profile-parse.js';
import { parseRuntime, type ParsedRuntime } from './runtime-parse.js';
import { scaffoldStore } from './scaffold.js';
import { resolveSmcp } from './smcp-load.js';
import { buildServer } from './server-build.js';
import { parseSource, type Source } from './source.js';
import { storeVariables, type StoreVariables } from './store-variables.js';
import { didYouMean } from '../contract/model/did-you-mean.js';
import type { LoadOptions, LoadResult } from './types.js';

/** Always the absolute store directory, so profiles can point at files next to them. */
const STORE_DIR_VARIABLE = 'MCPD_STORE_DIR';
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

/** Default cap on one store file: a 50 MB YAML froze the core for 19 s and left it at 2.5 GB. */
const DEFAULT_MAX_STORE_FILE_BYTES = 1024 * 1024;

async function readSource(file: string, issues: ConfigIssue[], maxBytes: number): Promise<Source | undefined> {
  try {
    const trust = await trustIssue(file, 'file');
    if (trust) {
      issues.push(trust);
      return undefined;
    }
    const size = (await stat(file)).size;
    if (size > maxBytes) {
      issues.push(
        fileIssue(
          file,
          `the file is ${size} bytes, over the ${maxBytes}-byte limit for a store file`,
          'make it smaller (split servers into profiles), or raise MCPD_STORE_MAX_FILE_BYTES',
        ),
      );
      return undefined;
    }
    return parseSource(file, await readFile(file, 'utf8'));
  } catch (e) {
    issues.push(fileIssue(file, `cannot read file: ${(e as Error).message}`, 'check that the file exists and is readable'));
    return undefined;
  }
}

/**
 * A store file or directory another user owns or can write is refused: whatever it says would run as this
 * user (a profile's commands, a command input). Root-owned paths are trusted.
 */
async function trustIssue(path: string, kind: 'file' | 'directory'): Promise<ConfigIssue | undefined> {
  const why = foreignControl(await stat(path), { allowRootOwner: true });
  if (!why) return undefined;
  return fileIssue(
    path,
    `this store ${kind} cannot be trusted: ${why}, so another user could make mcpd run their commands`,
    `make it yours and writable only by you: chown $(id -u) ${path} && chmod go-w ${path}`,
  );
}

/** profile name → file; invalid and duplicate names are reported. */
async function listProfiles(dir: string, issues: ConfigIssue[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const profilesDir = join(dir, 'profiles');
  if (!(await exists(profilesDir))) return out;
  const trust = await trustIssue(profilesDir, 'directory');
  if (trust) {
    issues.push(trust);
    return out;
  }
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

interface ProfileLoad {
  dir: string;
  rt: ParsedRuntime;
  env: NodeJS.ProcessEnv;
  vars: StoreVariables;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  /** Servers left out because a value is missing (the store loads without them). */
  unresolved: ConfigIssue[];
  maxBytes: number;
  /** False for `validate` without --run-commands and for profiles no caller uses. */
  runCommands: boolean;
}

async function loadProfile(name: string, file: string, o: ProfileLoad): Promise<Profile | undefined> {
  const { dir, rt, env, issues, warnings, unresolved } = o;
  const src = await readSource(file, issues, o.maxBytes);
  if (!src) return undefined;
  if (src.broken) {
    issues.push(...src.issues);
    return undefined;
  }
  const parsed = parseProfile(src);
  const inputs = parsed.inputs.map((i) => i.def);
  const ctx = {
    file,
    variable: (n: string) => (n === STORE_DIR_VARIABLE ? dir : o.vars.variable(n)),
    publicVariables: new Set([STORE_DIR_VARIABLE]),
    lookedIn: o.vars.lookedIn,
    input: inputResolver({ defs: inputs, values: rt.inputValues, env, cwd: dir, runCommands: o.runCommands }),
    issues: src.issues,
  };
  const servers: ServerSpec[] = [];
  for (const raw of parsed.servers) {
    // A disabled server never runs: nothing of it is resolved (no variable required, no command run).
    const own: ConfigIssue[] = [];
    const spec = await buildServer(
      raw,
      raw.fixed.disabled ? { ...ctx, input: deferredInputs(), unresolved: [] } : { ...ctx, unresolved: own },
      dir,
    );
    if (!spec) {
      // The server has errors of its own: its missing values are reported with them.
      src.issues.push(...own);
      continue;
    }
    // One server missing a value does not keep the store from loading: it is left out, with the reason.
    if (own.length) {
      spec.disabled = true;
      spec.unavailable = own.map((i) => `${i.message} (${relative(dir, i.file)}:${i.line}); ${i.hint}`).join('; ');
      unresolved.push(
        ...own.map((i) => ({ ...i, hint: `${i.hint}; until then the server "${raw.name}" is left out (the rest of the store runs)` })),
      );
    }
    // A server that needs a command input that was not run cannot start; it stays disabled until it can.
    if (JSON.stringify([spec.cmd, spec.env, spec.cwd, spec.url, spec.headers]).includes(DEFERRED_INPUT)) spec.disabled = true;
    servers.push(spec);
  }
  issues.push(...src.issues);
  warnings.push(...src.warnings);
  return { name, file, servers, inputs, namespace: parsed.namespace, ...(parsed.toolSearch ? { toolSearch: parsed.toolSearch } : {}) };
}

interface CallersFile {
  refs: CallerRef[];
  policies: PolicyRule[];
}

async function loadCallers(file: string, profiles: ReadonlySet<string>, issues: ConfigIssue[], maxBytes: number): Promise<CallersFile> {
  if (!(await exists(file))) return { refs: [], policies: [] };
  const src = await readSource(file, issues, maxBytes);
  if (!src) return { refs: [], policies: [] };
  const refs = src.broken ? [] : parseCallers(src);
  const policies = policiesOf(src);
  for (const ref of refs) {
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
  return { refs, policies };
}

/**
 * The callers' own reserves, each checked against its profile's maxLength: what is left for names
 * must stay at least MIN_NAME_BUDGET, as for a profile's own reserve.
 */
function callerReserves(
  file: string,
  refs: readonly CallerRef[],
  profiles: ReadonlyMap<string, Profile>,
  issues: ConfigIssue[],
): Map<string, number> {
  const out = new Map<string, number>();
  for (const { caller, profile, reserve } of refs) {
    if (!reserve) continue;
    const max = profiles.get(profile)?.namespace.maxLength;
    if (max !== undefined && max - reserve.value < MIN_NAME_BUDGET) {
      issues.push({
        file,
        line: reserve.where.line,
        column: reserve.where.column,
        field: reserve.where.field,
        message: `reserve ${reserve.value} leaves ${max - reserve.value} of profile "${profile}"'s maxLength ${max} characters for names; at least ${MIN_NAME_BUDGET} are needed`,
        hint: `lower reserve to at most ${max - MIN_NAME_BUDGET} or raise namespace.maxLength in profiles/${profile}.yaml`,
      });
      continue;
    }
    out.set(caller, reserve.value);
  }
  return out;
}

async function loadRuntime(dir: string, issues: ConfigIssue[], maxBytes: number): Promise<ParsedRuntime> {
  const file = join(dir, 'runtime.yaml');
  const src = (await exists(file)) ? await readSource(file, issues, maxBytes) : undefined;
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
  if (await isFile(abs)) return loadCatalogFile(abs, env, opts);
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
  const unresolved: ConfigIssue[] = [];
  const maxBytes = opts.maxFileBytes ?? maxFileBytesFrom(env);
  const dirTrust = await trustIssue(abs, 'directory');
  if (dirTrust) return { ok: false, issues: [dirTrust] };
  const files = await listProfiles(abs, issues);
  const rt = await loadRuntime(abs, issues, maxBytes);
  const vars = await storeVariables(rt, join(abs, 'runtime.yaml'), env, opts.envDescription, issues);
  const { refs: callerRefs, policies } = await loadCallers(callersFile, new Set(files.keys()), issues, maxBytes);
  const callers = new Map(callerRefs.map((r) => [r.caller, r.profile]));
  // Commands of profiles no caller can reach are not run.
  const used = new Set([DEFAULT_PROFILE, ...callers.values()]);
  const profiles = new Map<string, Profile>();
  for (const [name, file] of files) {
    const runCommands = opts.runCommands !== false && used.has(name);
    const p = await loadProfile(name, file, { dir: abs, rt, env, vars, issues, warnings, unresolved, maxBytes, runCommands });
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
  const reserves = callerReserves(callersFile, callerRefs, profiles, issues);
  const smcp = rt.smcp && (await resolveSmcp(rt.smcp, join(abs, 'runtime.yaml'), env, issues));
  // A store that does not load anyway reports everything at once, missing values included.
  if (issues.length) return { ok: false, issues: [...issues, ...unresolved].sort(byPosition) };
  const store: ProfileStore = {
    dir: abs,
    profiles,
    callers,
    ...(reserves.size ? { callerReserves: reserves } : {}),
    runtime: rt.runtime,
    ...(smcp ? { smcp } : {}),
    ...(policies.length ? { policies } : {}),
  };
  return { ok: true, store, warnings: warnings.sort(byPosition), unresolved: unresolved.sort(byPosition) };
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
async function loadCatalogFile(file: string, env: NodeJS.ProcessEnv, opts: LoadOptions): Promise<LoadResult> {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const unresolved: ConfigIssue[] = [];
  const base = dirname(file);
  const rt = parseRuntime(parseSource(join(base, 'runtime.yaml'), ''), base);
  const maxBytes = opts.maxFileBytes ?? maxFileBytesFrom(env);
  const runCommands = opts.runCommands !== false;
  const vars = await storeVariables(rt, join(base, 'runtime.yaml'), env, opts.envDescription, issues);
  const profile = await loadProfile(DEFAULT_PROFILE, file, {
    dir: base,
    rt,
    env,
    vars,
    issues,
    warnings,
    unresolved,
    maxBytes,
    runCommands,
  });
  if (issues.length || !profile) return { ok: false, issues: [...issues, ...unresolved].sort(byPosition) };
  const store: ProfileStore = { dir: file, profiles: new Map([[DEFAULT_PROFILE, profile]]), callers: new Map(), runtime: rt.runtime };
  return { ok: true, store, warnings: warnings.sort(byPosition), unresolved: unresolved.sort(byPosition) };
}

function maxFileBytesFrom(env: NodeJS.ProcessEnv): number {
  const n = Number(env.MCPD_STORE_MAX_FILE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_STORE_FILE_BYTES;
}

/**
 * For `mcpd validate --config DIR`: every error in the store, empty when it loads with every server
 * (a server left out for a missing value is reported: the core would run without it). Command inputs run only
 * when asked (`--run-commands`): validating a store someone sent you must not run its commands.
 */
export async function validateStoreDir(dir: string, env: NodeJS.ProcessEnv = process.env, runCommands = false): Promise<ConfigIssue[]> {
  const r = await validateStore(dir, env, runCommands);
  return [...r.errors, ...r.warnings];
}

/**
 * The same, in two levels: `errors` keep the store from loading; `warnings` are values that are not to be
 * had here (an unset variable, an input without a value) — the core runs without that server until they
 * are, so CI checking an imported store need not fail on them (`mcpd validate --strict` does).
 */
export async function validateStore(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  runCommands = false,
): Promise<{ errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const r = await loadStore(dir, { env, scaffold: false, runCommands });
  return r.ok ? { errors: [], warnings: r.unresolved } : { errors: r.issues, warnings: [] };
}

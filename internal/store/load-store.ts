import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ConfigIssue } from '../shared/errors.js';
import { DEFAULT_PROFILE, type Profile, type ProfileStore } from '../contract/model/profile.js';
import { callerReserves, loadCallers } from './callers-load.js';
import { listProfiles, loadProfile } from './profile-load.js';
import { parseRuntime, type ParsedRuntime } from './runtime-parse.js';
import { scaffoldStore } from './scaffold.js';
import { resolveSmcp } from './smcp-load.js';
import { parseSource } from './source.js';
import { exists, fileIssue, maxFileBytesFrom, readSource, trustIssue } from './store-file.js';
import { storeVariables } from './store-variables.js';
import type { LoadOptions, LoadResult } from './types.js';

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

import { readdir } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { ConfigIssue } from '../shared/errors.js';
import type { Profile } from '../contract/model/profile.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { DEFERRED_INPUT, deferredInputs, inputResolver } from './input-resolver.js';
import { NAME_HINT, isValidName } from './names.js';
import { parseProfile } from './profile-parse.js';
import type { ParsedRuntime } from './runtime-parse.js';
import { buildServer } from './server-build.js';
import type { StoreVariables } from './store-variables.js';
import { exists, fileIssue, readSource, trustIssue } from './store-file.js';

/** Always the absolute store directory, so profiles can point at files next to them. */
const STORE_DIR_VARIABLE = 'MCPD_STORE_DIR';
const PROFILE_EXTENSIONS = ['.yaml', '.yml'];

/** profile name → file; invalid and duplicate names are reported. */
export async function listProfiles(dir: string, issues: ConfigIssue[]): Promise<Map<string, string>> {
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

export interface ProfileLoad {
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

export async function loadProfile(name: string, file: string, o: ProfileLoad): Promise<Profile | undefined> {
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

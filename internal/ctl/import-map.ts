import { basename } from 'node:path';
import type { InputDef } from '../contract/model/profile.js';
import type { Strategy } from '../contract/model/spec.js';
import { serverTableOf, type Dialect } from './import-dialects.js';
import type { ProposedSandbox } from './sandbox-proposal.js';

/** A server entry as written in the mcpd profile (YAML), in the A2C-SMCP `command` + `args` spelling. */
export interface ImportedServer {
  name: string;
  transport?: 'streamable_http' | 'sse';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  exposeTools?: string[];
  forbiddenTools?: string[];
  /** Written when it is not mcpd's default (import-strategy.ts chooses it). */
  strategy?: Strategy;
  /** stdio: the sandbox proposed from its arguments and env (sandbox-proposal.ts). */
  sandbox?: ProposedSandbox;
}

export interface ImportResult {
  servers: ImportedServer[];
  inputs: InputDef[];
  /** What could not be mapped, and why: printed for the user, never silent. */
  notes: string[];
}

type Json = Record<string, unknown>;

const KNOWN_SERVER_KEYS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'type',
  'transport',
  'url',
  'headers',
  'disabled',
  'exposeTools',
  'forbiddenTools',
]);

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `${input:id}` and `${VAR}` mean the same in mcpd; VS Code's `${env:VAR}` becomes `${VAR}` and
 * `${userHome}` becomes `${HOME}`. Anything else (`${workspaceFolder}` …) only means something inside
 * the editor: the caller reports it. A literal `$${` stays literal.
 */
function mapPlaceholders(text: string, vscode = false): { text: string; unknown: string[] } {
  const unknown: string[] = [];
  const out = text.replace(/\$\{([^}]*)\}/g, (whole, inner: string, offset: number) => {
    if (offset > 0 && text[offset - 1] === '$') return whole;
    if (/^input:[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(inner)) return whole;
    // In VS Code a bare ${name} is an editor variable (${workspaceFolder}); elsewhere an environment variable.
    if (!vscode && /^[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?$/.test(inner)) return whole;
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env) return `\${${env[1]}}`;
    if (inner === 'userHome') return '${HOME}';
    unknown.push(whole);
    return whole;
  });
  return { text: out, unknown };
}

/** Longest server name mcpd takes (names.ts); a longer one is cut. */
const MAX_SERVER_NAME = 64;

/**
 * The name import gives a client's entry before a clash is numbered: what mcpd's names allow, cut to
 * their length. `connect` uses it too, to know a client's entry for a server the profile now runs.
 */
export function importedName(raw: string): string {
  return (
    raw
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, MAX_SERVER_NAME) || 'server'
  );
}

function serverName(raw: string, taken: Set<string>, notes: string[], label = `server "${raw}"`): string {
  let name = importedName(raw);
  for (let i = 2; taken.has(name); i++) name = `${name.replace(/-\d+$/, '')}-${i}`;
  if (name !== raw) notes.push(`${label}: renamed to "${name}" (${renameReasons(raw, name).join('; ')})`);
  taken.add(name);
  return name;
}

/** Why an imported name differs from the client's: each rule that changed it. */
function renameReasons(raw: string, name: string): string[] {
  const reasons: string[] = [];
  const allowed = raw.replace(/[^A-Za-z0-9_-]/g, '-');
  if (allowed !== raw) reasons.push('mcpd names use letters, digits, "-" and "_" only');
  if (!/^[A-Za-z0-9]/.test(allowed)) reasons.push('they start with a letter or digit');
  if (allowed.replace(/^[^A-Za-z0-9]+/, '').length > MAX_SERVER_NAME) reasons.push(`they are ${MAX_SERVER_NAME} characters at most`);
  if (name !== importedName(raw)) reasons.push('another imported server has that name');
  return reasons.length ? reasons : ['mcpd names use letters, digits, "-" and "_" only'];
}

function transportOf(entry: Json): 'stdio' | 'streamable_http' | 'sse' | undefined {
  const t = typeof entry.type === 'string' ? entry.type : typeof entry.transport === 'string' ? entry.transport : undefined;
  if (t === undefined) return typeof entry.url === 'string' && entry.command === undefined ? 'streamable_http' : 'stdio';
  const norm = t.toLowerCase().replace(/[-_]/g, '');
  if (norm === 'stdio') return 'stdio';
  if (norm === 'http' || norm === 'streamablehttp') return 'streamable_http';
  if (norm === 'sse') return 'sse';
  return undefined;
}

function stringMap(v: unknown, what: string, label: string, notes: string[]): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v)) {
    notes.push(`${label}: "${what}" is not an object; left out`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
    else notes.push(`${label}: ${what}.${k} is not a string; left out`);
  }
  return out;
}

/** Rewrites placeholders in every string; a server using one mcpd cannot resolve is left out. */
function mapStrings(s: ImportedServer, label: string, notes: string[], vscode: boolean): boolean {
  const unknown: string[] = [];
  const map = (t: string): string => {
    const r = mapPlaceholders(t, vscode);
    unknown.push(...r.unknown);
    return r.text;
  };
  if (s.command) s.command = map(s.command);
  if (s.args) s.args = s.args.map(map);
  if (s.url) s.url = map(s.url);
  if (s.cwd) s.cwd = map(s.cwd);
  for (const m of [s.env, s.headers]) if (m) for (const [k, v] of Object.entries(m)) m[k] = map(v);
  if (unknown.length === 0) return true;
  notes.push(
    `${label}: not imported: it uses ${[...new Set(unknown)].join(', ')}, which only the editor can resolve; write the value in and import again, or add the server by hand`,
  );
  return false;
}

/** Where an entry came from: its name in the file, the label notes use, and the name it should get. */
interface Origin {
  raw: string;
  label: string;
  wanted: string;
}

function mapServer(o: Origin, entry: unknown, taken: Set<string>, notes: string[], vscode: boolean): ImportedServer | undefined {
  const { label } = o;
  if (!isObj(entry)) {
    notes.push(`${label}: not an object; skipped`);
    return undefined;
  }
  const transport = transportOf(entry);
  if (!transport) {
    notes.push(
      `${label}: transport type ${JSON.stringify(entry.type ?? entry.transport)} is unknown (mcpd speaks stdio, http, sse); skipped`,
    );
    return undefined;
  }
  const s: ImportedServer = { name: serverName(o.wanted, taken, notes, label) };
  if (transport === 'stdio') {
    if (typeof entry.command !== 'string' || entry.command === '') {
      notes.push(`${label}: a stdio server needs "command"; skipped`);
      return undefined;
    }
    s.command = entry.command;
    if (Array.isArray(entry.args)) s.args = entry.args.map(String);
    s.env = stringMap(entry.env, 'env', label, notes);
    if (typeof entry.cwd === 'string') s.cwd = entry.cwd;
  } else {
    if (typeof entry.url !== 'string' || entry.url === '') {
      notes.push(`${label}: an ${transport} server needs "url"; skipped`);
      return undefined;
    }
    s.transport = transport;
    s.url = entry.url;
    s.headers = stringMap(entry.headers, 'headers', label, notes);
  }
  if (entry.disabled === true) s.disabled = true;
  for (const k of ['exposeTools', 'forbiddenTools'] as const) if (Array.isArray(entry[k])) s[k] = (entry[k] as unknown[]).map(String);
  for (const k of Object.keys(entry)) {
    if (KNOWN_SERVER_KEYS.has(k)) continue;
    const why =
      k === 'envFile'
        ? 'mcpd does not read env files; copy the variables into env'
        : k === 'oauth'
          ? 'sign-in to remote servers is configured separately'
          : 'mcpd has no such setting';
    notes.push(`${label}: "${k}" not imported (${why})`);
  }
  if (s.env && Object.keys(s.env).length === 0) delete s.env;
  if (s.headers && Object.keys(s.headers).length === 0) delete s.headers;
  return mapStrings(s, label, notes, vscode) ? s : undefined;
}

function mapInputs(v: unknown, notes: string[]): InputDef[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    notes.push('"inputs" is not a list; left out');
    return [];
  }
  const out: InputDef[] = [];
  for (const i of v) {
    if (!isObj(i) || typeof i.id !== 'string') {
      notes.push(`input ${JSON.stringify(i)}: needs an "id"; skipped`);
      continue;
    }
    const description = typeof i.description === 'string' ? { description: i.description } : {};
    if (i.type === 'promptString') {
      out.push({
        id: i.id,
        type: 'promptString',
        ...description,
        ...(typeof i.default === 'string' ? { default: i.default } : {}),
        ...(i.password === true ? { password: true } : {}),
      });
    } else if (i.type === 'pickString' && Array.isArray(i.options)) {
      const options = i.options.map((o) => (isObj(o) && typeof o.value === 'string' ? o.value : String(o)));
      out.push({ id: i.id, type: 'pickString', ...description, options, ...(typeof i.default === 'string' ? { default: i.default } : {}) });
    } else {
      notes.push(`input "${i.id}": type ${JSON.stringify(i.type)} not imported (mcpd imports promptString and pickString inputs)`);
    }
  }
  return out;
}

/**
 * Claude Code keeps servers per project too (`projects["/path"].mcpServers` in ~/.claude.json). Each is
 * imported as `<project>-<server>`, run in the project directory (Claude Code starts them there), unless
 * it is the same entry as the user-level server of that name.
 */
function projectServers(doc: Json, user: Json, taken: Set<string>, notes: string[]): ImportedServer[] {
  if (!isObj(doc.projects)) return [];
  const out: ImportedServer[] = [];
  for (const [dir, project] of Object.entries(doc.projects)) {
    if (!isObj(project) || !isObj(project.mcpServers)) continue;
    const stem =
      basename(dir)
        .replace(/[^A-Za-z0-9_-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '') || 'project';
    for (const [raw, entry] of Object.entries(project.mcpServers)) {
      const label = `server "${raw}" of project ${dir}`;
      if (JSON.stringify(user[raw]) === JSON.stringify(entry)) {
        notes.push(`${label}: the same as the user-level server "${raw}"; imported once`);
        continue;
      }
      const withCwd = isObj(entry) && entry.command !== undefined && entry.cwd === undefined ? { ...entry, cwd: dir } : entry;
      const s = mapServer({ raw, label, wanted: `${stem}-${raw}` }, withCwd, taken, notes, false);
      if (!s) continue;
      notes.push(`${label}: imported as "${s.name}"${s.cwd === dir ? `, run in ${dir}` : ''}`);
      out.push(s);
    }
  }
  return out;
}

/**
 * Maps a client's configuration: `mcpServers` (Claude Desktop, Cursor, Claude Code with its per-project
 * servers, Gemini CLI, most READMEs), VS Code's `servers` + `inputs`, or Codex's `mcp_servers` tables.
 * Pure: reading and writing files is the command's business.
 */
export function mapClientConfig(doc: unknown, dialect: Dialect = 'mcp-json'): ImportResult {
  const notes: string[] = [];
  if (!isObj(doc)) return { servers: [], inputs: [], notes: ['the file does not hold an object'] };
  const { table, vscode } = serverTableOf(doc, dialect);
  const taken = new Set<string>();
  const servers: ImportedServer[] = [];
  for (const [raw, entry] of Object.entries(table ?? {})) {
    const s = mapServer({ raw, label: `server "${raw}"`, wanted: raw }, entry, taken, notes, vscode);
    if (s) servers.push(s);
  }
  servers.push(...projectServers(doc, table ?? {}, taken, notes));
  if (!table && servers.length === 0)
    return {
      servers: [],
      inputs: [],
      notes: [...notes, `no ${dialect === 'codex' ? '[mcp_servers.*] tables' : '"mcpServers" or "servers" object'} in the file`],
    };
  const inputs = mapInputs(doc.inputs, notes);
  const used = new Set(
    JSON.stringify(servers)
      .match(/\$\{input:[^}]+\}/g)
      ?.map((m) => m.slice(8, -1)) ?? [],
  );
  for (const id of used)
    if (!inputs.some((i) => i.id === id))
      notes.push(`\${input:${id}} is used but not defined in "inputs"; define it in the profile or set MCPD_INPUT_* for it`);
  return { servers, inputs, notes };
}

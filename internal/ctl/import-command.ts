import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { formatIssue, McpdError } from '../shared/errors.js';
import { inputEnvName, loadStore, scaffoldStore, writeStoreSchemas } from '../store/index.js';
import { holdsStore } from '../launch/store-location.js';
import { mapCaller, type MappingOutcome } from './caller-mapping.js';
import { SCHEMA_DIR, SCHEMA_FILES } from '../store/store-schema.js';
import { isValidName } from '../store/names.js';
import { clientConfigFile, isClientName, unknownClientMessage, type ClientName, type ClientPlace } from './client-configs.js';
import type { Dialect } from './import-dialects.js';
import type { Out } from './ctl-command.js';
import { runInProjectFolder } from './import-project-dir.js';
import { mapClientConfig, type ImportResult } from './import-map.js';
import { parseJsonc } from './jsonc.js';
import { missingValueLines, missingValues } from './import-missing-values.js';
import { chooseStrategy } from './import-strategy.js';
import { parse as parseToml } from 'smol-toml';
import { escapeField, escapeTerminal } from './terminal-text.js';
import { proposeSandbox } from './sandbox-proposal.js';
import { describeSandbox } from '../contract/model/sandbox.js';

export interface ImportFlags {
  configDir: string;
  profile?: string;
  dryRun?: boolean;
  force?: boolean;
  place: ClientPlace;
}

interface Source {
  file: string;
  profile: string;
  client?: ClientName;
  dialect: Dialect;
}

const DIALECTS: Partial<Record<ClientName, Dialect>> = { 'gemini-cli': 'gemini-cli', codex: 'codex' };

/** A file's dialect by its place: a TOML file is Codex's, a settings.json under .gemini Gemini CLI's. */
function fileDialect(file: string): Dialect {
  if (/\.toml$/i.test(file)) return 'codex';
  return /[/\\]\.gemini[/\\]settings\.json$/.test(file) ? 'gemini-cli' : 'mcp-json';
}

/**
 * A known client's file, or an existing file. Anything else is refused with the list of clients: a typo
 * ("gemini") must not be read as a file name in the current directory.
 */
function sourceOf(source: string, place: ClientPlace): Source {
  if (isClientName(source))
    return { file: clientConfigFile(source, place).path, profile: source, client: source, dialect: DIALECTS[source] ?? 'mcp-json' };
  const file = resolve(source);
  if (!existsSync(file))
    throw new McpdError(
      'INVALID_ARGUMENT',
      /[/\\.]/.test(source)
        ? `cannot read ${file}: no such file`
        : `${unknownClientMessage(source)}; and there is no file ${file} to import either`,
    );
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return { file, profile: stem || 'imported', dialect: fileDialect(file) };
}

/** The document a client file holds: JSON with comments, or Codex's TOML. */
function parseSource(file: string, text: string, dialect: Dialect): unknown {
  try {
    return dialect === 'codex' ? parseToml(text) : parseJsonc(text);
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `${file} is not valid ${dialect === 'codex' ? 'TOML' : 'JSON'}: ${(e as Error).message}`);
  }
}

function profileYaml(r: ImportResult, file: string): string {
  const doc: Record<string, unknown> = {};
  if (r.inputs.length) doc.inputs = r.inputs;
  doc.servers = r.servers;
  return (
    `# yaml-language-server: $schema=../${SCHEMA_DIR}/${SCHEMA_FILES.profile}\n` +
    `# Imported from ${file} by "mcpdctl import". Reference: docs/configuration.md\n${stringify(doc, { lineWidth: 0 })}`
  );
}

/**
 * Loads the profile alone in a scratch store, with every `${VAR}` and input given a stand-in value:
 * what remains are real mistakes; the secrets are the user's to provide later.
 */
async function structuralIssues(text: string, r: ImportResult, target: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpd-import-'));
  try {
    await mkdir(join(dir, 'profiles'));
    await writeFile(join(dir, 'profiles', 'default.yaml'), text);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [, name = ''] of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g)) env[name] ??= 'x';
    for (const [, id = ''] of text.matchAll(/\$\{input:([^}]+)\}/g)) env[inputEnvName(id)] ??= 'x';
    for (const i of r.inputs) env[inputEnvName(i.id)] = i.type === 'pickString' ? (i.default ?? i.options[0] ?? 'x') : 'x';
    const loaded = await loadStore(dir, { env, scaffold: false });
    const scratch = join(dir, 'profiles', 'default.yaml');
    return loaded.ok ? [] : loaded.issues.map((i) => formatIssue(i).split(scratch).join(target));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function mappingNote(m: MappingOutcome, caller: string, profile: string): string {
  if (m.kind === 'added') return `callers.yaml: caller "${caller}" now uses profile "${profile}"; next: "mcpdctl connect ${caller}"\n`;
  if (m.kind === 'kept')
    return `callers.yaml already maps caller "${caller}" to profile "${m.profile}"; left as is (change it there to use "${profile}")\n`;
  return `callers.yaml not changed (${m.why}); map the caller yourself: callers: { ${caller}: ${profile} }\n`;
}

/**
 * Every imported stdio server runs sandboxed: the sandbox proposed from its arguments and env is written
 * into its entry. Returns, per server, the grants in one line and why each is there.
 */
function proposeSandboxes(r: ImportResult): Record<string, { summary: string; reasons: string[] }> {
  const out: Record<string, { summary: string; reasons: string[] }> = {};
  for (const s of r.servers) {
    if (s.command === undefined) continue;
    const p = proposeSandbox(s.args ?? [], s.env ?? {}, s.cwd);
    s.sandbox = p.sandbox;
    const { read, write } = p.sandbox.filesystem;
    out[s.name] = { summary: describeSandbox({ read, write, allow: p.sandbox.network.allow }), reasons: p.reasons };
  }
  return out;
}

/** `mcpdctl import <FILE | client> [--profile NAME] [--dry-run] [--force]` (the clients: CLIENTS). */
export async function importCommand(source: string, flags: ImportFlags, out: Out): Promise<number> {
  const { file, profile: defaultName, client, dialect } = sourceOf(source, flags.place);
  const name = flags.profile ?? defaultName;
  if (!isValidName(name))
    throw new McpdError('INVALID_ARGUMENT', `--profile "${name}" is not a valid profile name; use letters, digits, "-" and "_"`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new McpdError(
      'NOT_FOUND',
      `cannot read ${file}: ${(e as Error).message}${client ? ` (is ${client} installed and configured?)` : ''}`,
    );
  }
  const doc = parseSource(file, text, dialect);
  const r = mapClientConfig(doc, dialect);
  runInProjectFolder(r, file);
  const strategies = Object.fromEntries(r.servers.map((s) => [s.name, chooseStrategy(s)]));
  for (const s of r.servers) if (strategies[s.name]?.strategy !== 'stateless') s.strategy = strategies[s.name]?.strategy;
  const sandboxes = proposeSandboxes(r);
  const yaml = profileYaml(r, file);
  const target = join(resolve(flags.configDir), 'profiles', `${name}.yaml`);
  const issues = r.servers.length ? await structuralIssues(yaml, r, target) : [];
  const missing = missingValues(yaml, r.inputs, resolve(flags.configDir));
  if (out.json) {
    out.write(
      `${JSON.stringify({ source: file, profile: name, target, servers: r.servers.map((s) => s.name), notes: r.notes, strategies, sandboxes, issues, missing, dryRun: Boolean(flags.dryRun) }, null, 2)}\n`,
    );
  } else {
    if (flags.dryRun) out.write(`${yaml}\n`);
    // Notes quote server names and keys from the imported file: escaped, one cannot forge a line of its own.
    for (const n of r.notes) out.write(`note: ${escapeField(n)}\n`);
    for (const [n, c] of Object.entries(strategies)) out.write(`strategy: ${escapeField(n)} → ${c.strategy} (${escapeField(c.rule)})\n`);
    // Before anything is written: what each server will be allowed, and why.
    for (const [n, p] of Object.entries(sandboxes)) {
      out.write(`sandbox: ${escapeField(n)} → ${escapeField(p.summary)}\n`);
      for (const why of p.reasons) out.write(`  ${escapeField(why)}\n`);
    }
    for (const i of issues) out.write(`problem: ${escapeTerminal(i)}\n`);
  }
  if (r.servers.length === 0) {
    if (!out.json) out.write(`nothing to import from ${file}\n`);
    return 1;
  }
  if (issues.length) return 1;
  if (flags.dryRun) {
    if (!out.json)
      out.write([...missingValueLines(missing), `dry run: would write ${target} (${r.servers.length} servers)`, ''].join('\n'));
    return 0;
  }
  if (existsSync(target) && !flags.force) {
    throw new McpdError(
      'FAILED_PRECONDITION',
      `${target} exists; pass --force to overwrite it, or --profile NAME to write another profile`,
    );
  }
  // Right after installing, the store may not exist yet: create the starter one so the result loads.
  const scaffolded = holdsStore(resolve(flags.configDir)) ? [] : await scaffoldStore(resolve(flags.configDir));
  if (scaffolded.length && !out.json) out.write(`created a profile store in ${resolve(flags.configDir)}\n`);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, yaml);
  // The comment at the top of the profile points editors here.
  await writeStoreSchemas(resolve(flags.configDir));
  if (!out.json) out.write(`wrote ${target}: ${r.servers.length} servers (${r.servers.map((s) => s.name).join(', ')})\n`);
  if (!out.json) for (const line of missingValueLines(missing)) out.write(`${line}\n`);
  // Imported from a client: that client's caller gets the profile, so "mcpdctl connect" is all that is left.
  if (client) {
    const m = await mapCaller(resolve(flags.configDir), client, name);
    if (!out.json) out.write(mappingNote(m, client, name));
  } else if (!out.json) {
    out.write(`map a caller to it in callers.yaml (callers: { my-client: ${name} }), then "mcpdctl connect <client> --caller my-client"\n`);
  }
  return 0;
}

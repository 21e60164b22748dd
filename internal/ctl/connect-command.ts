import { resolve } from 'node:path';
import { McpdError } from '../shared/errors.js';
import { NAME_HINT, isValidName } from '../store/names.js';
import {
  clientConfigFile,
  isClientName,
  unknownClientMessage,
  type ClientConfigFile,
  type ClientName,
  type ClientPlace,
} from './client-configs.js';
import { editConfigFile, type ConfigText } from './client-config-write.js';
import { editTomlTables, parseTomlConfig, tomlBlock } from './toml-edit.js';
import { editJsonEntries, parseJsonConfig } from './json-config-edit.js';
import { callerProfile, raiseReserve, type CallerProfile } from './caller-profile.js';
import { profileServers } from './runnable-servers.js';
import { importedName } from './import-map.js';
import { reserveFor, toolNameRule } from './client-tool-names.js';
import { DEFAULT_TOKEN_ENV, gatewayUrl, httpEntryFor, tokenEnvName } from './connect-http.js';
import type { Out } from './ctl-command.js';

/** The key mcpd's entry has in every client's server table. */
const ENTRY_NAME = 'mcpd';

export interface ConnectFlags {
  caller?: string;
  /** Written as `--socket` when the core is not on the default socket (see gatewaySocket). */
  socket?: string;
  dryRun?: boolean;
  /** Also remove the client's entries that mcpd now runs (imported into the caller's profile): else they run twice. */
  move?: boolean;
  configDir: string;
  place: ClientPlace;
  /** The gateway's entry point (dist/cmd/mcpdmcp/main.js of this installation). */
  gatewayScript: string;
  /** The Node.js binary: clients often start without the user's PATH, so it is spelled out. */
  node: string;
  /** Write a streamable HTTP entry for `mcpdmcp <caller> --http` instead of a stdio one (connect-http.ts). */
  http?: boolean;
  /** --url: where that gateway listens (default DEFAULT_GATEWAY_URL). */
  url?: string;
  /** --token-env: the variable holding the gateway's token, which the entry names (default MCPD_HTTP_TOKEN). */
  tokenEnv?: string;
}

type Json = Record<string, unknown>;

/**
 * A caller name goes into the client's argv: one that looks like a flag (`--socket=/elsewhere`) would
 * be read by the gateway as one. Only plain names pass.
 */
function callerOf(client: ClientName, caller: string | undefined): string {
  const name = caller ?? client;
  if (!isValidName(name))
    throw new McpdError('INVALID_ARGUMENT', `--caller ${JSON.stringify(name)} is not a valid caller name; ${NAME_HINT}`);
  return name;
}

function entryFor(client: ClientName, f: ConnectFlags): Json {
  if (f.http) return httpEntryFor(client, gatewayUrl(f.url), tokenEnvName(f.tokenEnv));
  if (f.url !== undefined || f.tokenEnv !== undefined)
    throw new McpdError(
      'INVALID_ARGUMENT',
      `${f.url !== undefined ? '--url' : '--token-env'} applies only with --http (the stdio entry needs neither)`,
    );
  const args = [f.gatewayScript, callerOf(client, f.caller), '--config', resolve(f.configDir), ...(f.socket ? ['--socket', f.socket] : [])];
  return client === 'vscode' ? { type: 'stdio', command: f.node, args } : { command: f.node, args };
}

/**
 * The socket a client's gateway must be told: only --socket or MCPD_SOCKET of this shell (the client will
 * not have them). Everything else the gateway finds from the store itself (its running core's record, its
 * runtime.yaml, the store's own default socket), so the entry is the same whether or not a core runs.
 */
export function gatewaySocket(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const socket = flag || env.MCPD_SOCKET;
  return socket ? resolve(socket) : undefined;
}

function serverTable(doc: Json, key: string, path: string): Json {
  const table = doc[key];
  if (table !== undefined && (typeof table !== 'object' || table === null || Array.isArray(table)))
    throw new McpdError('INVALID_ARGUMENT', `"${key}" in ${path} is not an object; nothing was changed`);
  return (table as Json | undefined) ?? {};
}

/** The diff of the entries touched, spelled as the file spells them (JSON, or Codex's TOML tables). */
function diffLines(file: ClientConfigFile, changes: [name: string, before: unknown, after: unknown][]): string {
  const text = (name: string, v: unknown) =>
    file.format === 'toml' ? tomlBlock(file.key, name, v) : `"${name}": ${JSON.stringify(v, null, 2)}`;
  const show = (sign: string, name: string, v: unknown) =>
    v === undefined
      ? []
      : text(name, v)
          .split('\n')
          .map((l) => `${sign} ${l}`);
  return changes.flatMap(([name, before, after]) => [...show('-', name, before), ...show('+', name, after)]).join('\n');
}

/** The client's server table as it stands (a file that does not parse is refused, untouched). */
function currentTable(file: ClientConfigFile, cur: ConfigText): Json {
  const doc = file.format === 'toml' ? parseTomlConfig(cur.path, cur.text) : parseJsonConfig(cur.path, cur.text);
  return serverTable(doc, file.key, cur.path);
}

/** The file's new text: only the touched entries change (jsonc-parser edits for JSON, table lines for TOML). */
function newText(file: ClientConfigFile, cur: ConfigText, changes: [string, unknown][]): string {
  return file.format === 'toml' ? editTomlTables(cur.path, cur.text, file.key, changes) : editJsonEntries(cur.text, file.key, changes);
}

/** Entry names compared as import renames them ("brave search" → "brave-search", cut to 64 characters). */
function simpleName(name: string): string {
  return importedName(name).toLowerCase().replace(/-+/g, '-');
}

/**
 * Gives the caller its own `reserve` in callers.yaml, the room the client's tool-name prefix needs (a
 * client with no known prefix rule needs none), and says what it did. Only this caller's names change:
 * other callers of the profile keep theirs.
 */
async function reserveNote(client: ClientName, profile: CallerProfile, write: boolean): Promise<string | undefined> {
  const rule = toolNameRule(client);
  if (!rule) return undefined;
  const prefix = rule.prefix(ENTRY_NAME);
  const why = `${client} shows tools as ${prefix}<tool>, ${rule.limit} characters at most`;
  const r = await raiseReserve(profile, (max) => reserveFor(rule, ENTRY_NAME, max), write);
  const who = `caller "${profile.caller}" (profile "${profile.name}") in ${profile.callersFile}`;
  const mapped = profile.shared ? `; callers.yaml did not map this caller: it now maps it to "${profile.name}" explicitly` : '';
  if (r.kind === 'kept')
    return `reserve: ${r.reserve}${r.own ? '' : ` (profile "${profile.name}"'s namespace.reserve)`} for ${who} already leaves room (${why})`;
  if (r.kind === 'raised') return `reserve: ${r.from} → ${r.to} for ${who}${write ? '' : ' (dry run, not written)'}: ${why}${mapped}`;
  const hand = `callers: { ${profile.caller}: { profile: ${profile.name}, reserve: ${reserveFor(rule, ENTRY_NAME, 64)} } }`;
  if (r.kind === 'missing')
    return `note: profile "${profile.name}" (${profile.file}) does not exist; create it, then give the caller ${hand} (${why})`;
  return `note: the caller's reserve was not set (${r.why}); write ${hand} by hand (${why})`;
}

/**
 * What to run so the HTTP entry has a gateway to reach: the client does not start it (it only connects), and
 * it serves the caller named on its command line, with the token from the variable the entry names.
 */
function httpGatewayNote(client: ClientName, caller: string, f: ConnectFlags): string {
  const url = new URL(gatewayUrl(f.url));
  const env = tokenEnvName(f.tokenEnv);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const tokenFrom = env === DEFAULT_TOKEN_ENV ? '' : ` (the gateway reads MCPD_HTTP_TOKEN: MCPD_HTTP_TOKEN="$${env}")`;
  return [
    `${client} connects to ${url.href}; it does not start the gateway. Run it (keep it running):`,
    `  ${f.node} ${f.gatewayScript} ${caller} --config ${resolve(f.configDir)}${f.socket ? ` --socket ${f.socket}` : ''} --http ${url.hostname}:${port}`,
    `with ${env} set to the gateway's token in its environment${tokenFrom} and in the environment ${client} starts in (never written into ${client}'s file)`,
  ].join('\n');
}

function clientOf(name: string): ClientName {
  if (!isClientName(name)) throw new McpdError('INVALID_ARGUMENT', unknownClientMessage(name));
  return name;
}

/**
 * `mcpdctl connect <client>` points the client at `mcpdmcp <caller>`; `disconnect` removes that entry.
 * Both edit the file in place (comments, order and layout of everything else stay; the mode is kept;
 * a symbolic link is written through), keep one backup (`<file>.mcpd-backup`), and do nothing when
 * nothing would change. `--move` also removes the named entries (servers mcpd now runs).
 */
export async function connectCommand(name: string, connect: boolean, f: ConnectFlags, out: Out): Promise<number> {
  const client = clientOf(name);
  const file = clientConfigFile(client, f.place);
  const after = connect ? entryFor(client, f) : undefined;
  const profile = callerProfile(f.configDir, callerOf(client, f.caller));
  const servers = connect ? profileServers(profile, resolve(f.configDir)) : [];
  const imported = new Set(servers.map((s) => simpleName(s.name)));
  const cannotRun = new Map(servers.flatMap((s) => (s.cannotRun ? [[simpleName(s.name), s.cannotRun] as const] : [])));
  let twice: string[] = [];
  let held: string[] = [];
  let changes: [string, unknown, unknown][] = [];
  const plan = (cur: ConfigText): string | undefined => {
    const table = currentTable(file, cur);
    twice = Object.keys(table).filter((n) => n !== ENTRY_NAME && imported.has(simpleName(n)));
    // Taken out of the client only when mcpd can run it: else the user would lose a working server.
    held = f.move ? twice.filter((n) => cannotRun.has(simpleName(n))) : [];
    const moved = connect && f.move ? twice.filter((n) => !held.includes(n)) : [];
    changes = [
      ...(JSON.stringify(table[ENTRY_NAME]) === JSON.stringify(after)
        ? []
        : [[ENTRY_NAME, table[ENTRY_NAME], after] as [string, unknown, unknown]]),
      ...moved.map((n) => [n, table[n], undefined] as [string, unknown, unknown]),
    ];
    if (changes.length === 0 || f.dryRun) return undefined;
    return newText(
      file,
      cur,
      changes.map(([n, , a]) => [n, a]),
    );
  };
  const { before, backup } = await editConfigFile(file.path, plan);
  const entryBefore = changes.find(([n]) => n === ENTRY_NAME)?.[1] ?? (changes.length ? undefined : after);
  const status =
    changes.length === 0
      ? connect
        ? 'already connected'
        : 'not connected'
      : f.dryRun
        ? 'dry run, not written'
        : connect
          ? 'connected'
          : 'disconnected';
  const movedNames = changes.filter(([n]) => n !== ENTRY_NAME).map(([n]) => n);
  const reserve = connect ? await reserveNote(client, profile, !f.dryRun) : undefined;
  const gateway = connect && f.http ? httpGatewayNote(client, profile.caller, f) : undefined;
  if (out.json) {
    out.write(
      `${JSON.stringify({ client, file: before.path, status, before: entryBefore ?? null, after: after ?? null, moved: movedNames, kept: held, backup: backup ?? null, reserve: reserve ?? null, gateway: gateway ?? null }, null, 2)}\n`,
    );
    return 0;
  }
  if (changes.length) out.write(`${diffLines(file, changes)}\n`);
  if (reserve) out.write(`${reserve}\n`);
  out.write(`${status}: ${before.path}\n`);
  if (gateway) out.write(`${gateway}\n`);
  if (backup) out.write(`backup: ${backup}\n`);
  if (movedNames.length && !f.dryRun) out.write(`moved to mcpd (removed from ${client}): ${movedNames.join(', ')}\n`);
  for (const n of held)
    out.write(
      `note: ${n} stays in ${client}'s config: mcpd cannot run it yet (${cannotRun.get(simpleName(n))}); give it what it needs, then connect again with --move\n`,
    );
  if (connect && !f.move && twice.length)
    out.write(
      `note: ${twice.join(', ')} ${twice.length > 1 ? 'are' : 'is'} also in mcpd's profile for this caller and stay${twice.length > 1 ? '' : 's'} in ${client}'s config, so ${twice.length > 1 ? 'they run' : 'it runs'} twice; connect again with --move to remove ${twice.length > 1 ? 'them' : 'it'} from ${client} (backed up, shown in the diff)\n`,
    );
  if (!f.dryRun && changes.length && connect) out.write(`restart ${client} to pick it up\n`);
  return 0;
}

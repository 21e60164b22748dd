import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { McpdError } from '../shared/errors.js';
import { recordedSocket } from '../contract/store/core-record.js';
import { defaultSocketPath } from '../contract/session/socket-path.js';
import { clientConfigFile, isClientName, CLIENTS, type ClientName, type ClientPlace } from './client-configs.js';
import type { Out } from './ctl-command.js';
import { parseJsonc } from './jsonc.js';

/** The key mcpd's entry has in every client's server table. */
const ENTRY_NAME = 'mcpd';

export interface ConnectFlags {
  caller?: string;
  /** Written as `--socket` when the core is not on the default socket (see gatewaySocket). */
  socket?: string;
  dryRun?: boolean;
  configDir: string;
  place: ClientPlace;
  /** The gateway's entry point (dist/cmd/mcpdmcp/main.js of this installation). */
  gatewayScript: string;
  /** The Node.js binary: clients often start without the user's PATH, so it is spelled out. */
  node: string;
  /** For backup names; default now. */
  now?: () => Date;
}

type Json = Record<string, unknown>;

function entryFor(client: ClientName, f: ConnectFlags): Json {
  const args = [f.gatewayScript, f.caller ?? client, '--config', resolve(f.configDir), ...(f.socket ? ['--socket', f.socket] : [])];
  return client === 'vscode' ? { type: 'stdio', command: f.node, args } : { command: f.node, args };
}

/**
 * The socket a client's gateway must be told: --socket or MCPD_SOCKET of this shell (the client will not
 * have them), else the one the store's running core recorded — undefined when that is the default, which
 * every gateway finds on its own.
 */
export function gatewaySocket(flag: string | undefined, env: NodeJS.ProcessEnv, configDir: string): string | undefined {
  const socket = flag || env.MCPD_SOCKET || recordedSocket(configDir, env);
  return socket && resolve(socket) !== defaultSocketPath({}) ? resolve(socket) : undefined;
}

async function readConfig(path: string): Promise<{ doc: Json; existed: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { doc: {}, existed: false };
    throw new McpdError('UNAVAILABLE', `cannot read ${path}: ${(e as Error).message}`);
  }
  if (text.trim() === '') return { doc: {}, existed: true };
  let doc: unknown;
  try {
    doc = parseJsonc(text);
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `${path} is not valid JSON (${(e as Error).message}); fix it first, nothing was changed`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new McpdError('INVALID_ARGUMENT', `${path} does not hold a JSON object; nothing was changed`);
  return { doc: doc as Json, existed: true };
}

function diffLines(before: unknown, after: unknown): string {
  const show = (sign: string, v: unknown) =>
    v === undefined ? [] : `"${ENTRY_NAME}": ${JSON.stringify(v, null, 2)}`.split('\n').map((l) => `${sign} ${l}`);
  return [...show('-', before), ...show('+', after)].join('\n');
}

/** Backs the file up next to itself, then replaces it in one rename (a crash leaves old or new, never half). */
async function save(path: string, doc: Json, existed: boolean, now: Date): Promise<string | undefined> {
  await mkdir(dirname(path), { recursive: true });
  let backup: string | undefined;
  if (existed) {
    backup = `${path}.mcpd-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
    await copyFile(path, backup);
  }
  const tmp = `${path}.mcpd-tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
  return backup;
}

function clientOf(name: string): ClientName {
  if (!isClientName(name)) throw new McpdError('INVALID_ARGUMENT', `unknown client "${name}"; use one of ${CLIENTS.join(', ')}`);
  return name;
}

/**
 * `mcpdctl connect <client>` points the client at `mcpdmcp <caller>`; `disconnect` removes that entry.
 * Both touch only the "mcpd" entry, leave the rest of the file as it was (comments aside: a JSONC file
 * is rewritten as JSON, the backup keeps the original), and do nothing when nothing would change.
 */
export async function connectCommand(name: string, connect: boolean, f: ConnectFlags, out: Out): Promise<number> {
  const client = clientOf(name);
  const file = clientConfigFile(client, f.place);
  const { doc, existed } = await readConfig(file.path);
  const table = doc[file.key];
  if (table !== undefined && (typeof table !== 'object' || table === null || Array.isArray(table)))
    throw new McpdError('INVALID_ARGUMENT', `"${file.key}" in ${file.path} is not an object; nothing was changed`);
  const servers = { ...((table as Json | undefined) ?? {}) };
  const before = servers[ENTRY_NAME];
  const after = connect ? entryFor(client, f) : undefined;
  const report = (status: string, extra: Json = {}) =>
    out.write(
      out.json
        ? `${JSON.stringify({ client, file: file.path, status, before: before ?? null, after: after ?? null, ...extra }, null, 2)}\n`
        : `${status}: ${file.path}\n`,
    );
  if (JSON.stringify(before) === JSON.stringify(after)) {
    report(connect ? 'already connected' : 'not connected');
    return 0;
  }
  if (after === undefined) delete servers[ENTRY_NAME];
  else servers[ENTRY_NAME] = after;
  if (!out.json) out.write(`${diffLines(before, after)}\n`);
  if (f.dryRun) {
    report('dry run, not written');
    return 0;
  }
  const backup = await save(file.path, { ...doc, [file.key]: servers }, existed, (f.now ?? (() => new Date()))());
  report(connect ? 'connected' : 'disconnected', { backup: backup ?? null });
  if (!out.json && backup) out.write(`backup: ${backup}\n`);
  if (!out.json && connect) out.write(`restart ${client} to pick it up\n`);
  return 0;
}

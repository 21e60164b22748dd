import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { defaultSocketPath } from '../contract/session/socket-path.js';
import { userStoreDir } from './store-location.js';
import { recordedSocket } from './core-record.js';
import { storeFolder } from './state-dir.js';

/**
 * The socket a store's core listens on when neither a flag, MCPD_SOCKET nor runtime.yaml names one: the
 * user's own store (~/.config/mcpd) keeps `control.sock`; every other store gets `control-<hash>.sock`
 * beside it, the hash of the store's real path. So a gateway or mcpdctl told `--config A` reaches A's core
 * or none — never the core of another store that happened to start first on a per-user socket.
 */
export function storeDefaultSocket(configDir: string, env: NodeJS.ProcessEnv = process.env, uid = userInfo().uid): string {
  const shared = defaultSocketPath({}, uid);
  const store = realFolder(configDir);
  if (store === realFolder(userStoreDir(env))) return shared;
  const id = createHash('sha256').update(store).digest('hex').slice(0, 16);
  return join(dirname(shared), `control-${id}.sock`);
}

/** The store's folder with links resolved (a store reached through a symlink is the same store). */
function realFolder(configDir: string): string {
  const folder = storeFolder(configDir);
  try {
    return realpathSync(folder);
  } catch {
    // Not created yet (the core scaffolds the user's store on first run): its spelled path is its identity.
    return folder;
  }
}

/**
 * runtime.yaml's `socket:` of the store, relative to the store's folder as the core reads it; undefined
 * when there is none or the file does not parse (the core reports that when it loads the store). The
 * YAML parser is loaded only for a runtime.yaml that mentions a socket: a gateway's start stays lean.
 */
async function runtimeSocket(configDir: string): Promise<string | undefined> {
  const folder = storeFolder(configDir);
  const file = ['runtime.yaml', 'runtime.yml'].map((f) => join(folder, f)).find((f) => existsSync(f));
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Unreadable: the core says why when it loads the store; clients fall back to the store's default.
    return undefined;
  }
  if (!/^\s*["']?socket["']?\s*:/m.test(text)) return undefined;
  // Bundled (dist/cmd), the CommonJS-shaped package arrives as its default export only.
  const yaml: Partial<typeof import('yaml')> & { default?: typeof import('yaml') } = await import('yaml');
  const parse = yaml.parse ?? yaml.default?.parse;
  if (!parse) return undefined;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    // Bad YAML: the core refuses the store with the line; clients fall back to the store's default.
    return undefined;
  }
  const v = doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>).socket : undefined;
  if (typeof v !== 'string' || v === '') return undefined;
  return isAbsolute(v) ? v : resolve(folder, v);
}

/**
 * Where a client (gateway, mcpdctl) of the store finds its core: --socket, else MCPD_SOCKET, else the
 * socket the store's running core recorded, else runtime.yaml's `socket:`, else the store's default socket.
 * The core picks the same path by the same rules, so a gateway that starts it connects where it listens.
 */
export async function storeSocket(flag: string | undefined, env: NodeJS.ProcessEnv, configDir: string): Promise<string> {
  return (
    flag || env.MCPD_SOCKET || recordedSocket(configDir, env) || (await runtimeSocket(configDir)) || storeDefaultSocket(configDir, env)
  );
}

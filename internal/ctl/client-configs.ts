import { closestNames } from '../contract/model/did-you-mean.js';
import { join } from 'node:path';

/** The MCP clients mcpd can import from and connect to. */
export const CLIENTS = ['claude-desktop', 'cursor', 'vscode', 'claude-code', 'gemini-cli', 'codex'] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface ClientPlace {
  /** Where the user-level configuration lives. */
  home: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

export interface ClientConfigFile {
  client: ClientName;
  path: string;
  /** The key that holds the servers: VS Code uses "servers", Codex (TOML) "mcp_servers", the others "mcpServers". */
  key: 'mcpServers' | 'servers' | 'mcp_servers';
  /** JSON (comments allowed) for every client but Codex, whose config.toml is TOML. */
  format: 'json' | 'toml';
}

function appData(p: ClientPlace): string {
  return p.env.APPDATA || join(p.home, 'AppData', 'Roaming');
}

function xdgConfig(p: ClientPlace): string {
  return p.env.XDG_CONFIG_HOME || join(p.home, '.config');
}

/** The per-user configuration directory of a desktop app ("Claude", "Code") on each platform. */
function appConfigDir(p: ClientPlace, app: string): string {
  if (p.platform === 'darwin') return join(p.home, 'Library', 'Application Support', app);
  if (p.platform === 'win32') return join(appData(p), app);
  return join(xdgConfig(p), app);
}

/** The user-level configuration file of each client (docs/clients.md lists them). */
export function clientConfigFile(client: ClientName, p: ClientPlace): ClientConfigFile {
  switch (client) {
    case 'claude-desktop':
      return { client, path: join(appConfigDir(p, 'Claude'), 'claude_desktop_config.json'), key: 'mcpServers', format: 'json' };
    case 'cursor':
      return { client, path: join(p.home, '.cursor', 'mcp.json'), key: 'mcpServers', format: 'json' };
    case 'vscode':
      return { client, path: join(appConfigDir(p, 'Code'), 'User', 'mcp.json'), key: 'servers', format: 'json' };
    case 'claude-code':
      return { client, path: join(p.home, '.claude.json'), key: 'mcpServers', format: 'json' };
    case 'gemini-cli':
      // Gemini CLI keeps its user settings under the home directory on every platform.
      return { client, path: join(p.home, '.gemini', 'settings.json'), key: 'mcpServers', format: 'json' };
    case 'codex':
      // CODEX_HOME moves Codex's whole state directory (~/.codex by default).
      return { client, path: join(p.env.CODEX_HOME || join(p.home, '.codex'), 'config.toml'), key: 'mcp_servers', format: 'toml' };
  }
}

export function isClientName(s: string): s is ClientName {
  return (CLIENTS as readonly string[]).includes(s);
}

/** "unknown client "gemini" (did you mean gemini-cli?); the known clients are …": for import and connect alike. */
export function unknownClientMessage(name: string): string {
  const [near] = closestNames(name, CLIENTS, 1);
  return `unknown client "${name}"${near ? ` (did you mean ${near}?)` : ''}; the known clients are ${CLIENTS.join(', ')}`;
}

export function placeFromProcess(env: NodeJS.ProcessEnv = process.env): ClientPlace {
  return { home: env.HOME || env.USERPROFILE || '', platform: process.platform, env };
}

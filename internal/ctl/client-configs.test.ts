import { describe, expect, it } from 'vitest';
import { clientConfigFile, CLIENTS, type ClientName } from './client-configs.js';

const paths = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string) =>
  Object.fromEntries(CLIENTS.map((c: ClientName) => [c, clientConfigFile(c, { home, platform, env }).path]));

describe('client config locations (docs/clients.md)', () => {
  it('Linux, honouring XDG_CONFIG_HOME', () => {
    expect(paths('linux', {}, '/home/jane')).toEqual({
      'claude-desktop': '/home/jane/.config/Claude/claude_desktop_config.json',
      cursor: '/home/jane/.cursor/mcp.json',
      vscode: '/home/jane/.config/Code/User/mcp.json',
      'claude-code': '/home/jane/.claude.json',
      'gemini-cli': '/home/jane/.gemini/settings.json',
      codex: '/home/jane/.codex/config.toml',
    });
    expect(paths('linux', { CODEX_HOME: '/srv/codex' }, '/home/jane')['codex']).toBe('/srv/codex/config.toml');
    expect(paths('linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/jane')['vscode']).toBe('/cfg/Code/User/mcp.json');
  });

  it('macOS', () => {
    expect(paths('darwin', {}, '/Users/jane')).toEqual({
      'claude-desktop': '/Users/jane/Library/Application Support/Claude/claude_desktop_config.json',
      cursor: '/Users/jane/.cursor/mcp.json',
      vscode: '/Users/jane/Library/Application Support/Code/User/mcp.json',
      'claude-code': '/Users/jane/.claude.json',
      'gemini-cli': '/Users/jane/.gemini/settings.json',
      codex: '/Users/jane/.codex/config.toml',
    });
  });

  it('Windows, from APPDATA', () => {
    const p = paths('win32', { APPDATA: '/C/Users/jane/AppData/Roaming' }, '/C/Users/jane');
    expect(p['claude-desktop']).toBe('/C/Users/jane/AppData/Roaming/Claude/claude_desktop_config.json');
    expect(p['vscode']).toBe('/C/Users/jane/AppData/Roaming/Code/User/mcp.json');
    expect(p['cursor']).toBe('/C/Users/jane/.cursor/mcp.json');
  });

  it('uses the server table each client reads', () => {
    expect(CLIENTS.map((c) => clientConfigFile(c, { home: '/h', platform: 'linux', env: {} }).key)).toEqual([
      'mcpServers',
      'mcpServers',
      'servers',
      'mcpServers',
      'mcpServers',
      'mcp_servers',
    ]);
  });
});

describe('the README names every client connect knows', () => {
  it('its connect line lists all of them', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const line = /`mcpdctl connect <([^>]*)>`/.exec(readme)?.[1] ?? '';
    expect(line.split('|').map((s) => s.trim())).toEqual([...CLIENTS]);
  });
});

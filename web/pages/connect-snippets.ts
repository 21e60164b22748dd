import type { ConnectInfo } from '../../internal/contract/dashboard/dashboard-events.js';

interface Snippet {
  title: string;
  text: string;
  /** The tool names the client's model sees and the budget that leaves (docs/clients.md). */
  names?: string;
}

/** A word for a POSIX shell line: single-quoted unless plainly safe (paths may hold spaces, quotes, `$`). */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const tomlString = (s: string) => JSON.stringify(s);

/** One entry per client of docs/clients.md, in the shape each client's file takes, plus the gateway over HTTP. */
export function clientSnippets(i: ConnectInfo, caller: string): Snippet[] {
  // --socket: the client must reach this very core, even when it runs on a socket other than the default.
  const args = [i.gateway, caller, '--config', i.configDir, '--socket', i.socket];
  const entry = { command: i.node, args };
  const json = (o: unknown) => JSON.stringify(o, null, 2);
  const budget = (prefix: string, limit: number, reserve: number) =>
    `Tool names reach the model as ${prefix}<tool>, at most ${limit} characters: the caller needs reserve: ${reserve} in callers.yaml (mcpdctl connect sets it).`;
  return [
    {
      title: 'Claude Desktop (claude_desktop_config.json)',
      text: json({ mcpServers: { mcpd: entry } }),
      names: 'No tool-name prefix is documented: names up to 64 characters, nothing reserved.',
    },
    {
      title: 'Cursor (~/.cursor/mcp.json)',
      text: json({ mcpServers: { mcpd: entry } }),
      names: 'No tool-name prefix is documented: nothing reserved.',
    },
    {
      title: 'VS Code (.vscode/mcp.json)',
      text: json({ servers: { mcpd: { type: 'stdio', ...entry } } }),
      names: 'No tool-name prefix is documented: nothing reserved.',
    },
    { title: 'Claude Code (~/.claude.json)', text: json({ mcpServers: { mcpd: entry } }), names: budget('mcp__mcpd__', 64, 11) },
    { title: 'Gemini CLI (~/.gemini/settings.json)', text: json({ mcpServers: { mcpd: entry } }), names: budget('mcp_mcpd_', 63, 10) },
    {
      title: 'Codex (~/.codex/config.toml)',
      text: `[mcp_servers.mcpd]\ncommand = ${tomlString(i.node)}\nargs = [ ${args.map(tomlString).join(', ')} ]`,
      names: budget('mcp__mcpd__', 64, 11),
    },
    {
      title: 'Streamable HTTP (run the gateway, then point the client at the URL)',
      text: `${[i.node, ...args].map(shellWord).join(' ')} --http 127.0.0.1:8931\n# client URL: http://127.0.0.1:8931/mcp`,
    },
  ];
}

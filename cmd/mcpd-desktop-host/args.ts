import { parseArgs as nodeParseArgs } from 'node:util';

export const USAGE = `usage: mcpd-desktop-host --workspace-root DIR (--socket PATH | --mcp)

  --socket PATH          serve the Desktop Bridge contract (JSON-RPC 2.0, NDJSON) on a unix socket (0600 in a 0700 dir)
  --mcp                  serve as an MCP server on stdio (window:// resources, tools that ask before acting)
  --workspace-root DIR   evidence and meta.workspacePath must lie under this directory
  --poll-ms N            (--mcp) how often the window:// resources are refreshed (default 1000)`;

/** Thrown for --help: the usage goes to stdout and the exit code is 0. */
export class HelpRequested extends Error {}

export interface HostArgs {
  socket?: string;
  mcp: boolean;
  workspaceRoot: string;
  pollMs: number;
}

export function parseArgs(argv: string[]): HostArgs {
  const { values } = nodeParseArgs({
    args: argv,
    options: {
      socket: { type: 'string' },
      mcp: { type: 'boolean' },
      'workspace-root': { type: 'string' },
      'poll-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  if (values.help) throw new HelpRequested(USAGE);
  const root = values['workspace-root'];
  if (!root) throw new Error(`--workspace-root DIR is required\n\n${USAGE}`);
  if (!values.socket && !values.mcp) throw new Error(`give --socket PATH or --mcp\n\n${USAGE}`);
  if (values.socket && values.mcp) throw new Error(`--socket and --mcp are two modes; run two hosts for both\n\n${USAGE}`);
  const pollMs = values['poll-ms'] === undefined ? 1000 : Number(values['poll-ms']);
  if (!Number.isInteger(pollMs) || pollMs < 50 || pollMs > 60_000)
    throw new Error(`--poll-ms must be an integer 50–60000 (got ${values['poll-ms']})`);
  return { socket: values.socket, mcp: Boolean(values.mcp), workspaceRoot: root, pollMs };
}

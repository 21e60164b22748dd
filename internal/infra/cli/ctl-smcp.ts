/**
 * `mcpdctl smcp <url> --office O room|tools|call|desktop|finder|config|read|watch …`: an SMCP Agent on the
 * command line, over SmcpAgent. Needs no mcpd core; it talks to an SMCP Server.
 */
import { NOTIFY_EVENTS } from '../../domain/smcp/events.js';
import type { JsonObject } from '../../domain/json.js';
import { SmcpAgent } from '../smcp-agent/smcp-agent.js';
import { str, type CtlCommand, type CtlRun, type Out } from './ctl-command.js';
import { renderTable, truncate } from './table.js';

const SUBCOMMANDS = `commands (after <url>):
  room                                      the office's agents and computers
  tools <computer>                          the computer's tools (SMCPTool)
  call <computer> <tool> [--args JSON] [--timeout S]   call a tool (timeout in seconds, default 60)
  desktop <computer> [--size N] [--window URI]          the computer's desktop
  finder <computer> [--keywords a,b] [--type T] [--offset N] [--limit N]
  config <computer>                         the computer's MCP server configs and inputs
  read <computer> <uri>                     read a resource on the computer (dpe://, window://)
  watch                                     print notify:* events of the office until Ctrl-C

It joins the office as an agent (one agent per office). The API key is read from the environment
variable named by --api-key-env (default SMCP_API_KEY). No mcpd core is needed.`;

class UsageError extends Error {}

function intFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** `mcpdctl smcp <url> --office O <command> …`, registered in ctl-commands.ts. */
export const smcpCtlCommand: CtlCommand = {
  name: 'smcp',
  args: '<url> <command> [computer] [tool|uri]',
  summary: 'an A2C-SMCP agent: room, tools, call, desktop, finder, config, read, watch (no core needed)',
  details: SUBCOMMANDS,
  offline: true,
  flags: {
    office: { type: 'string', value: 'O', help: 'the office to join as an agent (required)' },
    name: { type: 'string', value: 'AGENT', help: 'the agent name (default mcpdctl-<pid>)' },
    'api-key-env': { type: 'string', value: 'NAME', help: 'environment variable holding the API key (default SMCP_API_KEY)' },
    args: { type: 'string', value: 'JSON', help: 'call: the tool arguments as a JSON object (default {})' },
    timeout: { type: 'string', value: 'S', help: 'call: timeout in seconds (default 60)' },
    size: { type: 'string', value: 'N', help: 'desktop: at most N windows' },
    window: { type: 'string', value: 'URI', help: 'desktop: only this window' },
    keywords: { type: 'string', value: 'a,b', help: 'finder: documents matching any of these keywords' },
    type: { type: 'string', value: 'T', help: 'finder: only this file type' },
    offset: { type: 'string', value: 'N', help: 'finder: skip N documents' },
    limit: { type: 'string', value: 'N', help: 'finder: at most N documents' },
  },
  run: ({ args, flags, out }) => smcpCommand(args, flags, out),
};

/** Runs one sub-command; 0 ok, 1 failed request or tool error (thrown errors too), 2 usage. */
export async function smcpCommand(positionals: string[], v: Values, out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [url, cmd, ...rest] = positionals;
  let agent: SmcpAgent | undefined;
  try {
    if (!/^https?:\/\//.test(url))
      throw new UsageError(`first give the SMCP Server URL, e.g. http://127.0.0.1:7800, got ${JSON.stringify(url)}`);
    const run = COMMANDS[cmd];
    if (!run) throw new UsageError(`unknown smcp command "${cmd}"`);
    const office = str(v.office);
    if (!office) throw new UsageError('--office is required: the office to join as an agent');
    run.check((n, what) => {
      if (rest.length < n) throw new UsageError(`smcp ${cmd} needs ${what}`);
    });
    const apiKey = env[str(v['api-key-env']) ?? 'SMCP_API_KEY'] || undefined;
    const name = str(v.name) ?? `mcpdctl-${process.pid}`;
    agent = await SmcpAgent.connect({ url, name, apiKey, office, autoRefresh: false });
    return await run.exec(agent, rest, v, out);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    out.warn(`mcpdctl smcp: ${e.message}\n\n${SUBCOMMANDS}\n`);
    return 2;
  } finally {
    agent?.close();
  }
}

type Values = CtlRun['flags'];
interface SubCommand {
  check: (need: (n: number, what: string) => void) => void;
  exec: (agent: SmcpAgent, rest: string[], v: Values, out: Out) => Promise<number>;
}

const json = (out: Out, v: unknown): number => {
  out.write(`${JSON.stringify(v, null, 2)}\n`);
  return 0;
};

const COMMANDS: Record<string, SubCommand> = {
  room: {
    check: () => undefined,
    exec: async (agent, _r, _v, out) => {
      const sessions = await agent.listRoom();
      if (out.json) return json(out, { sessions });
      out.write(
        renderTable(
          ['ROLE', 'NAME', 'SID'],
          sessions.map((s) => [s.role, s.name, s.sid]),
        ),
      );
      return 0;
    },
  },
  tools: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computer], _v, out) => {
      const tools = await agent.getTools(computer);
      if (out.json) return json(out, { tools });
      out.write(
        renderTable(
          ['TOOL', 'DESCRIPTION'],
          tools.map((t) => [t.name, truncate((t.description ?? '').split('\n')[0], 80)]),
        ),
      );
      out.write(`${tools.length} tools on ${computer}\n`);
      return 0;
    },
  },
  call: {
    check: (need) => need(2, 'a computer and a tool name'),
    exec: async (agent, [computer, tool], v, out) => {
      let params: JsonObject;
      try {
        params = JSON.parse(str(v.args) ?? '{}') as JsonObject;
      } catch (e) {
        throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new UsageError('--args must be a JSON object');
      const r = await agent.callTool(computer, tool, params, { timeoutSeconds: intFlag('timeout', str(v.timeout)) ?? 60 });
      if (out.json) json(out, r);
      else for (const c of r.content as { type: string; text?: string }[]) out.write(c.type === 'text' ? `${c.text}\n` : `[${c.type}]\n`);
      return r.isError ? 1 : 0;
    },
  },
  desktop: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computer], v, out) => {
      const desktops = await agent.getDesktop(computer, { desktopSize: intFlag('size', str(v.size)), window: str(v.window) });
      if (out.json) return json(out, { desktops });
      desktops.forEach((d, i) => out.write(`${i ? '\n' : ''}----- window ${i + 1} of ${desktops.length} -----\n${d}\n`));
      if (desktops.length === 0) out.write(`the desktop of ${computer} is empty\n`);
      return 0;
    },
  },
  finder: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computer], v, out) => {
      const keywords = str(v.keywords)
        ?.split(',')
        .filter((k) => k.trim() !== '');
      const r = await agent.getFinder(computer, {
        keywords,
        fileType: str(v.type),
        offset: intFlag('offset', str(v.offset)),
        limit: intFlag('limit', str(v.limit)),
      });
      if (out.json) return json(out, r);
      out.write(
        renderTable(
          ['TITLE', 'TYPE', 'SERVER', 'URI'],
          r.documents.map((d) => [truncate(d.title, 40), d.file_type, d.server, d.uri]),
        ),
      );
      out.write(`${r.documents.length} of ${r.total_count} documents\n`);
      return 0;
    },
  },
  config: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computer], _v, out) => json(out, await agent.getConfig(computer)),
  },
  read: {
    check: (need) => need(2, 'a computer and a resource URI'),
    exec: async (agent, [computer, uri], _v, out) => {
      const r = await agent.readResource(computer, uri);
      if (out.json) return json(out, r);
      for (const c of r.contents) out.write(typeof c.text === 'string' ? `${c.text}\n` : `[binary ${String(c.mimeType ?? '')}]\n`);
      return 0;
    },
  },
  watch: {
    check: () => undefined,
    exec: async (agent, _r, _v, out) => {
      for (const event of Object.values(NOTIFY_EVENTS))
        agent.on(event, (data: unknown) =>
          out.write(out.json ? `${JSON.stringify({ event, data })}\n` : `${event} ${JSON.stringify(data)}\n`),
        );
      // On stderr, so --json output stays one event per line; scripts may wait for this line.
      out.warn(`watching office ${agent.office}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return 0;
    },
  },
};

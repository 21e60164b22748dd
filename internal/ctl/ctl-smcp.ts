/**
 * `mcpdctl smcp <url> [--office O] tools|call|desktop|finder|config|read|room|watch …`: an SMCP Agent on the
 * command line, over SmcpAgent. Needs no mcpd core; it talks to an SMCP Server.
 */
import { parseArgs } from 'node:util';
import { errorPayload, SMCP_CODES } from '../contract/smcp/error-codes.js';
import { NOTIFY_EVENTS } from '../contract/smcp/events.js';
import type { JsonObject } from '../shared/json.js';
import { SmcpAgent } from '../smcp/agent/smcp-agent.js';
import { SmcpError } from '../smcp/agent/smcp-error.js';
import { SMCP_FLAGS } from './ctl-smcp-flags.js';
import { renderTable, firstLine, truncate } from './table.js';
import { must } from '../shared/must.js';

export const SMCP_USAGE = `usage: mcpdctl smcp <url> [--office O] [--name AGENT] [--api-key-env NAME] [--json] <command>

  room                                      the office's agents and computers
  tools <computer>                          the computer's tools (SMCPTool)
  call <computer> <tool> [--args JSON] [--timeout S]   call a tool (timeout in seconds, default 60)
  desktop <computer> [--size N] [--window URI]          the computer's desktop
  finder <computer> [--keywords a,b] [--type T] [--offset N] [--limit N]
  config <computer>                         the computer's MCP server configs and inputs
  read <computer> <uri>                     read a resource on the computer (dpe://, window://)
  watch                                     print notify:* events of the office until Ctrl-C

  --office O: the office to join as its agent. Without it, a command naming a computer joins that
  computer's office, asked from the Server (mcpd-smcp; several offices with that name: pass --office);
  room and watch need it. The API key is read from the environment variable named by --api-key-env
  (default SMCP_API_KEY).`;

class UsageError extends Error {}

/** Like ctl-commands' Out (not imported: ctl-commands re-exports this file). */
interface Out {
  json: boolean;
  write: (s: string) => void;
}

function intFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

export { SMCP_FLAGS, SMCP_SUBCOMMANDS } from './ctl-smcp-flags.js';

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: SMCP_FLAGS, allowPositionals: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Runs the command; returns the exit code (0 ok, 1 failed request or tool error, 2 usage). */
export async function smcpCommand(
  argv: string[],
  write: (s: string) => void,
  writeErr: (s: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let agent: SmcpAgent | undefined;
  try {
    const { values, positionals } = parse(argv);
    if (values.help) {
      write(`${SMCP_USAGE}\n`);
      return 0;
    }
    const [url, cmd, ...rest] = positionals;
    if (!url || !/^https?:\/\//.test(url))
      throw new UsageError(`first give the SMCP Server URL, e.g. http://127.0.0.1:7800, got ${JSON.stringify(url ?? '')}`);
    if (!cmd) throw new UsageError('no command given');
    const out: Out = { json: Boolean(values.json), write };
    const need = (n: number, what: string): void => {
      if (rest.length < n) throw new UsageError(`smcp ${cmd} needs ${what}`);
    };
    const apiKey = env[values['api-key-env'] ?? 'SMCP_API_KEY'] || undefined;
    const name = values.name ?? `mcpdctl-${process.pid}`;
    const run = COMMANDS[cmd];
    if (!run) throw new UsageError(`unknown smcp command "${cmd}"`);
    run.check(need);
    if (!values.office && run.officeOnly)
      throw new UsageError(`smcp ${cmd} needs --office O: it ${run.officeOnly}, and without --office there is no office to join`);
    agent = await SmcpAgent.connect({ url, name, apiKey, office: values.office, autoRefresh: false });
    if (!values.office) await agent.joinOffice(await officeOf(agent, must(rest[0], '<computer>'), url)); // counted by check()
    return await run.exec(agent, rest, values, out);
  } catch (e) {
    if (e instanceof UsageError) {
      writeErr(`mcpdctl smcp: ${e.message}\n\n${SMCP_USAGE}\n`);
      return 2;
    }
    writeErr(`mcpdctl smcp: ${e instanceof SmcpError ? e.message : (e as Error).message}\n`);
    return 1;
  } finally {
    agent?.close();
  }
}

/** Without --office: the one office holding `computer`, asked from the Server. */
async function officeOf(agent: SmcpAgent, computer: string, url: string): Promise<string> {
  let offices: string[];
  try {
    offices = await agent.findComputer(computer);
  } catch (e) {
    if (!(e instanceof SmcpError) || e.code !== SMCP_CODES.timeout) throw e;
    throw new UsageError(
      `the Server at ${url} did not say which office computer "${computer}" is in (server:find_computer is an mcpd-smcp extension): pass --office O`,
    );
  }
  const [only] = offices;
  if (only !== undefined && offices.length === 1) return only;
  if (offices.length === 0)
    throw new SmcpError(
      errorPayload(SMCP_CODES.notFound, `computer: no computer "${computer}" is in any office on ${url}`, { field: 'computer' }),
    );
  throw new UsageError(`computer "${computer}" is in several offices (${offices.join(', ')}): pass --office O to pick one`);
}

/**
 * A tool result in text mode. A failed call always says why: the reference Computer reports some errors only
 * in `structuredContent.error` (with `content: []`), which would otherwise print nothing.
 */
function writeResult(r: { content: unknown; isError?: boolean; structuredContent?: unknown }, out: Out): void {
  const content = Array.isArray(r.content) ? (r.content as { type: string; text?: string }[]) : [];
  for (const c of content) out.write(c.type === 'text' ? `${c.text}\n` : `[${c.type}]\n`);
  if (!r.isError || content.some((c) => c.type === 'text' && c.text)) return;
  const sc = r.structuredContent as { error?: unknown; error_type?: unknown } | undefined;
  const why = typeof sc?.error === 'string' && sc.error !== '' ? sc.error : 'the tool failed without saying why';
  out.write(`error: ${why}${typeof sc?.error_type === 'string' ? ` (${sc.error_type})` : ''}\n`);
}

type Values = ReturnType<typeof parse>['values'];
interface SubCommand {
  /** Set for the commands about the office itself, not one computer: what they do, for the error without --office. */
  officeOnly?: string;
  check: (need: (n: number, what: string) => void) => void;
  exec: (agent: SmcpAgent, rest: string[], v: Values, out: Out) => Promise<number>;
}

const json = (out: Out, v: unknown): number => {
  out.write(`${JSON.stringify(v, null, 2)}\n`);
  return 0;
};

const COMMANDS: Record<string, SubCommand> = {
  room: {
    officeOnly: "lists the office's agents and computers",
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
    exec: async (agent, [computerArg], _v, out) => {
      const computer = must(computerArg, '<computer>'); // counted by check()
      const tools = await agent.getTools(computer);
      if (out.json) return json(out, { tools });
      out.write(
        renderTable(
          ['TOOL', 'DESCRIPTION'],
          tools.map((t) => [t.name, truncate(firstLine(t.description ?? ''), 80)]),
        ),
      );
      out.write(`${tools.length} tools on ${computer}\n`);
      return 0;
    },
  },
  call: {
    check: (need) => need(2, 'a computer and a tool name'),
    exec: async (agent, [computerArg, toolArg], v, out) => {
      const computer = must(computerArg, '<computer>'); // counted by check()
      const tool = must(toolArg, '<tool>'); // counted by check()
      let params: JsonObject;
      try {
        params = JSON.parse(v.args ?? '{}') as JsonObject;
      } catch (e) {
        throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new UsageError('--args must be a JSON object');
      const r = await agent.callTool(computer, tool, params, { timeoutSeconds: intFlag('timeout', v.timeout) ?? 60 });
      if (out.json) json(out, r);
      else writeResult(r, out);
      return r.isError ? 1 : 0;
    },
  },
  desktop: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computerArg], v, out) => {
      const computer = must(computerArg, '<computer>'); // counted by check()
      const desktops = await agent.getDesktop(computer, { desktopSize: intFlag('size', v.size), window: v.window });
      if (out.json) return json(out, { desktops });
      desktops.forEach((d, i) => out.write(`${i ? '\n' : ''}----- window ${i + 1} of ${desktops.length} -----\n${d}\n`));
      if (desktops.length === 0) out.write(`the desktop of ${computer} is empty\n`);
      return 0;
    },
  },
  finder: {
    check: (need) => need(1, 'a computer name'),
    exec: async (agent, [computerArg], v, out) => {
      const computer = must(computerArg, '<computer>'); // counted by check()
      const keywords = v.keywords?.split(',').filter((k) => k.trim() !== '');
      const r = await agent.getFinder(computer, {
        keywords,
        fileType: v.type,
        offset: intFlag('offset', v.offset),
        limit: intFlag('limit', v.limit),
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
    exec: async (agent, [computer], _v, out) => json(out, await agent.getConfig(must(computer, '<computer>'))),
  },
  read: {
    check: (need) => need(2, 'a computer and a resource URI'),
    exec: async (agent, [computerArg, uriArg], _v, out) => {
      const computer = must(computerArg, '<computer>'); // counted by check()
      const uri = must(uriArg, '<uri>'); // counted by check()
      const r = await agent.readResource(computer, uri);
      if (out.json) return json(out, r);
      for (const c of r.contents) out.write(typeof c.text === 'string' ? `${c.text}\n` : `[binary ${String(c.mimeType ?? '')}]\n`);
      return 0;
    },
  },
  watch: {
    officeOnly: "prints the office's notifications",
    check: () => undefined,
    exec: async (agent, _r, _v, out) => {
      for (const event of Object.values(NOTIFY_EVENTS))
        agent.on(event, (data: unknown) =>
          out.write(out.json ? `${JSON.stringify({ event, data })}\n` : `${event} ${JSON.stringify(data)}\n`),
        );
      // On stderr, so --json output stays one event per line; scripts may wait for this line.
      process.stderr.write(`watching office ${agent.office}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return 0;
    },
  },
};

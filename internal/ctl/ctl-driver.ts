import { parseArgs } from 'node:util';
import { isMcpdError } from '../shared/errors.js';
import type { ControlCalls } from '../contract/grpc/control-client.js';
import { assertSocketOwner } from '../contract/session/socket-path.js';
import { closest } from '../contract/model/did-you-mean.js';
import { COMMON_OPTIONS, configFrom, socketFrom } from '../launch/common-flags.js';
import { escapeTerminal } from './terminal-text.js';
import { parseOptions, type CtlCommand, type CtlRun, type Out } from './ctl-command.js';
import { must } from '../shared/must.js';

const GLOBAL_OPTIONS = { ...COMMON_OPTIONS, json: { type: 'boolean' } } as const;
const GLOBAL_HELP = `global options:
  --socket PATH   the core's control socket (env MCPD_SOCKET)
  --json          machine-readable output
  --version       print the version
  -h, --help      help (also: mcpdctl help COMMAND)`;

export interface CtlIo {
  out: (s: string) => void;
  err: (s: string) => void;
  version: string;
}

/** Global usage: every command with its arguments and summary. */
function ctlUsage(commands: readonly CtlCommand[]): string {
  const lines = commands.map((c) => {
    const head = `${c.name} ${c.args}`.trim();
    return `  ${head.padEnd(26)} ${c.summary}`;
  });
  return `usage: mcpdctl [--socket PATH] [--json] <command> [args]\n\ncommands:\n${lines.join('\n')}\n  ${'help [command]'.padEnd(26)} this text, or one command's\n\n${GLOBAL_HELP}`;
}

/** `mcpdctl help NAME`: usage line, summary, flags. */
function commandHelp(c: CtlCommand): string {
  const flags = Object.entries(c.flags ?? {});
  const flagUsage = flags.map(([n, f]) => `[--${n}${f.value ? ` ${f.value}` : ''}]`).join(' ');
  const lines = [`usage: mcpdctl ${[c.name, c.args, flagUsage].filter(Boolean).join(' ')}`, '', c.summary];
  if (c.details) lines.push('', c.details);
  if (flags.length) {
    lines.push('', 'options:');
    for (const [n, f] of flags) {
      const head = `${f.short ? `-${f.short}, ` : ''}--${n}${f.value ? ` ${f.value}` : ''}`;
      lines.push(`  ${head.padEnd(20)} ${f.help}`);
    }
  }
  lines.push('', GLOBAL_HELP);
  return lines.join('\n');
}

/** Runs `mcpdctl ARGV`; resolves with the exit code (0 ok, 1 failure, 2 usage). */
export async function runCtl(argv: string[], commands: readonly CtlCommand[], io: CtlIo): Promise<number> {
  const usage = ctlUsage(commands);
  // First pass: the global flags and the command name; the command's own flags are checked below.
  const first = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, allowPositionals: true });
  const [name, ...rest] = first.positionals;
  if (first.values.version === true && name === undefined) return print(io.out, io.version, 0);
  if (name === undefined) return first.values.help === true ? print(io.out, usage, 0) : print(io.err, usage, 2);
  if (name === 'help') return help(rest, commands, io, usage);
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    const guess = closest(
      name,
      commands.map((c) => c.name),
    );
    return print(io.err, `mcpdctl: unknown command "${name}"${guess ? `; did you mean "${guess}"?` : ''}\n\n${usage}`, 2);
  }
  if (cmd.passThrough) return cmd.passThrough(withoutName(argv, name), io);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...parseOptions(cmd.flags) }, strict: true, allowPositionals: true });
  } catch (e) {
    return print(io.err, `mcpdctl ${cmd.name}: ${(e as Error).message}\n\n${commandHelp(cmd)}`, 2);
  }
  if (parsed.values.help === true) return print(io.out, commandHelp(cmd), 0);
  if (parsed.values.version === true) return print(io.out, io.version, 0);
  const args = parsed.positionals.slice(1);
  const problem = countProblem(cmd, args);
  if (problem) return print(io.err, `mcpdctl ${cmd.name}: ${problem}\n\n${commandHelp(cmd)}`, 2);
  return execute(cmd, args, parsed.values as CtlRun['flags'], io);
}

function help(rest: string[], commands: readonly CtlCommand[], io: CtlIo, usage: string): number {
  if (rest.length === 0) return print(io.out, usage, 0);
  const cmd = commands.find((c) => c.name === rest[0]);
  if (!cmd || rest.length > 1) return print(io.err, `mcpdctl help: no command "${rest.join(' ')}"\n\n${usage}`, 2);
  return print(io.out, commandHelp(cmd), 0);
}

/** Says what is missing or extra, from the command's `args` (<required>, [optional]). */
function countProblem(cmd: CtlCommand, args: string[]): string | undefined {
  const names = cmd.args.split(/\s+/).filter(Boolean);
  const required = names.filter((n) => n.startsWith('<'));
  if (args.length < required.length) return `missing ${required.slice(args.length).join(' ')}`;
  if (args.length > names.length) {
    const extra = args.slice(names.length).map((a) => JSON.stringify(a));
    return `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(' ')}${cmd.extraArgsHint ? ` (${cmd.extraArgsHint})` : ''}`;
  }
  return undefined;
}

async function execute(cmd: CtlCommand, args: string[], flags: CtlRun['flags'], io: CtlIo): Promise<number> {
  const json = flags.json === true;
  // Text for people is escaped: names and errors come from others (a caller name could forge a row);
  // JSON output is escaped by JSON itself.
  const out: Out = { json, write: json ? io.out : (s) => io.out(escapeTerminal(s)), warn: (s) => io.err(escapeTerminal(s)) };
  // The store (flag, MCPD_CONFIG, the current directory's, ~/.config/mcpd) tells which core: its record names the socket.
  const socket = await socketFrom(
    typeof flags.socket === 'string' ? flags.socket : undefined,
    process.env,
    configFrom(typeof flags.config === 'string' ? flags.config : undefined),
  );
  // gRPC is loaded only by a command that runs: `mcpdctl --help` and usage errors never compile it.
  const { ControlCalls, createControlClient, waitForReady } = await import('../contract/grpc/control-client.js');
  const client = createControlClient(socket);
  try {
    if (!cmd.offline) {
      // Refuses a socket another user owns: it could be a squatter listening for our calls.
      assertSocketOwner(socket);
      await waitForReady(client, 3000).catch(() => {
        throw new Error(
          `no mcpd core at ${socket}; start one with \`mcpd\` (or \`mcpd --config DIR\`; in a checkout, \`make run\`), or pass --socket`,
        );
      });
      if (cmd.caller) await warnUnknownCaller(new ControlCalls(client), must(args[0], '<caller>'), io.err);
    }
    const code: unknown = await cmd.run({ client, out, socket, args, flags });
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    io.err(`mcpdctl: ${isMcpdError(e) ? `${e.reason}: ` : ''}${(e as Error).message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

/** A caller that callers.yaml does not name gets the default profile: say so, and name the known ones. */
async function warnUnknownCaller(calls: ControlCalls, caller: string, err: (s: string) => void): Promise<void> {
  const info = await calls.getInfo();
  if (Object.hasOwn(info.callers, caller)) return;
  const known = Object.entries(info.callers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([c, p]) => `${c} (${p})`);
  err(
    `mcpdctl: caller "${caller}" is not in callers.yaml, so it gets profile "default"; ` +
      (known.length ? `known callers: ${known.join(', ')}\n` : 'callers.yaml names no callers\n'),
  );
}

/** argv without the command's name (its first occurrence), global flags before it kept. */
function withoutName(argv: string[], name: string): string[] {
  const i = argv.indexOf(name);
  return [...argv.slice(0, i), ...argv.slice(i + 1)];
}

function print(write: (s: string) => void, text: string, code: number): number {
  write(`${text}\n`);
  return code;
}

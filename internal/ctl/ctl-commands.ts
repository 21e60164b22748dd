/*
 * The mcpdctl commands. To add one: write it in its own file as a `CtlCommand` (ctl-command.ts:
 * name, positional `args`, `summary`, `flags`, `run`), import it here and add it to CTL_COMMANDS —
 * one line. The driver (ctl-driver.ts) then gives it `mcpdctl help NAME`, `NAME --help`, unknown-flag
 * and extra-argument errors, the unknown-caller warning (`caller: true`) and a connected client.
 */
import type { CtlCommand } from './ctl-command.js';
import { str } from './ctl-command.js';
import { configFrom } from '../launch/common-flags.js';
import { SMCP_FLAGS } from './ctl-smcp-flags.js';
import { completionCommand } from './completion-command.js';
import { authCmd } from './auth-command.js';
import { pinsCmd } from './pins-command.js';
import { updateCmd } from './update-command.js';
import { addCmd, searchCmd } from './registry-commands.js';
import { connectCmd, disconnectCmd } from './connect-commands.js';
import { CLIENTS, placeFromProcess } from './client-configs.js';
import { must } from '../shared/must.js';

// Each command's code is imported when that command runs: `mcpdctl --help` compiles only this
// table, and `mcpdctl status` only the status command and the gRPC client.

/** "Starting server …" on stderr while a cold start keeps a listing or call waiting (a terminal only). */
const progress = (json: boolean) => ({ isTTY: Boolean(process.stderr.isTTY) && !json, write: (s: string) => process.stderr.write(s) });

const status: CtlCommand = {
  name: 'status',
  args: '[server]',
  summary: 'pools, instances, callers; with a server: its errors in full, with history',
  run: async ({ client, args, out }) => {
    const { serverStatusCommand, statusCommand } = await import('./ctl-status.js');
    return args[0] === undefined ? statusCommand(client, out) : serverStatusCommand(client, args[0], out);
  },
};

const tools: CtlCommand = {
  name: 'tools',
  args: '<caller>',
  summary: "the caller's tool list, as its MCP client sees it",
  caller: true,
  run: async ({ client, args, out }) => {
    const [{ withStartProgress }, { toolsCommand }] = await Promise.all([import('./start-progress.js'), import('./ctl-tools.js')]);
    return withStartProgress(client, toolsCommand(client, must(args[0], '<caller>'), out), progress(out.json));
  },
};

const call: CtlCommand = {
  name: 'call',
  args: '<caller> <tool>',
  summary: 'call one tool as the caller',
  caller: true,
  flags: {
    args: { type: 'string', value: 'JSON', help: 'the tool arguments as a JSON object (default {})' },
    timeout: { type: 'string', value: 'MS', help: 'deadline in milliseconds (default: the server’s callTimeoutSeconds)' },
    'input-responses': {
      type: 'string',
      value: 'FILE',
      help: 'answers to the server’s input requests (JSON keyed by elicitation/create, sampling/createMessage, roots/list); on a terminal mcpdctl asks instead',
    },
  },
  extraArgsHint: `tool arguments go in --args '{"a": 2}'`,
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-tools.js')).callCommand(
      client,
      must(args[0], '<caller>'),
      must(args[1], '<tool>'),
      str(flags.args) ?? '{}',
      Number(str(flags.timeout) ?? 0),
      out,
      str(flags['input-responses']),
    ),
};

const tasks: CtlCommand = {
  name: 'tasks',
  args: '<caller> [task]',
  summary: 'the tasks the core hosts for the caller (newest first); with a task id: that task in full',
  caller: true,
  flags: { cancel: { type: 'boolean', help: 'cancel the task named (its tool call is cancelled downstream)' } },
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-tasks.js')).tasksCommand(client, must(args[0], '<caller>'), args[1], flags.cancel === true, out),
};

const reload: CtlCommand = {
  name: 'reload',
  args: '',
  summary: 're-read the profile store now (also resumes suspended servers)',
  run: async ({ client, out }) => (await import('./ctl-reload.js')).reloadCommand(client, out),
};

const stop: CtlCommand = {
  name: 'stop',
  args: '',
  summary: 'stop the core gracefully (in-flight calls finish first); gateways start it again only when a client needs it',
  flags: {
    all: { type: 'boolean', help: 'also stop the gateways attached to it (clients see their MCP server exit)' },
  },
  run: async ({ client, flags, out }) => (await import('./ctl-stop.js')).stopCommand(client, out, { all: flags.all === true }),
};

const restart: CtlCommand = {
  name: 'restart',
  args: '<server>',
  summary: "restart a server's running instances (as the dashboard's pool action): prints the old and new pids",
  details:
    'server: its name in a profile, profile/server, or its spec fingerprint (12+ hex digits, as status shows it).\n' +
    'One after the other, each instance drains its calls in flight (the server’s drainTimeoutSeconds) and stops;\n' +
    'the pool starts a replacement when it would run fewer than its warm target (at least one). A server with no\n' +
    'instance running has nothing to restart (exit 0). Exit 1: an unknown server or instance, or a failed start.',
  flags: { instance: { type: 'string', value: 'ID', help: 'only this instance (an id `mcpdctl status SERVER` shows)' } },
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-restart.js')).restartCommand(client, must(args[0], '<server>'), str(flags.instance), out),
};

const importCmd: CtlCommand = {
  name: 'import',
  args: '<FILE|client>',
  summary: "turn a client's servers (or a FILE's mcpServers / servers / [mcp_servers]) into a profile",
  details: `clients: ${CLIENTS.join(', ')} (each read from its user-level file, docs/clients.md);\nor a FILE: JSON (comments allowed), or a Codex-style .toml`,
  offline: true,
  flags: {
    profile: { type: 'string', value: 'NAME', help: 'the profile to write (default: named after the source)' },
    'dry-run': { type: 'boolean', help: 'show what would be written, write nothing' },
    force: { type: 'boolean', help: 'replace an existing profile of that name' },
  },
  run: async ({ args, flags, out }) =>
    (await import('./import-command.js')).importCommand(
      must(args[0], '<source>'),
      {
        configDir: configFrom(str(flags.config)),
        dryRun: flags['dry-run'] === true,
        place: placeFromProcess(),
        profile: str(flags.profile),
        force: flags.force === true,
      },
      out,
    ),
};

const resources: CtlCommand = {
  name: 'resources',
  args: '<caller>',
  summary: "the caller's resources and resource templates",
  caller: true,
  run: async ({ client, args, out }) => (await import('./ctl-resources.js')).resourcesCommand(client, must(args[0], '<caller>'), out),
};

const read: CtlCommand = {
  name: 'read',
  args: '<caller> <uri>',
  summary: 'read one resource (dpe:// and mcpd:// URIs included)',
  caller: true,
  run: async ({ client, args, out }) =>
    (await import('./ctl-resources.js')).readCommand(client, must(args[0], '<caller>'), must(args[1], '<uri>'), out),
};

const prompts: CtlCommand = {
  name: 'prompts',
  args: '<caller>',
  summary: "the caller's prompts",
  caller: true,
  run: async ({ client, args, out }) => (await import('./ctl-resources.js')).promptsCommand(client, must(args[0], '<caller>'), out),
};

const logs: CtlCommand = {
  name: 'logs',
  args: '<caller>',
  summary: "the caller's recent log entries",
  caller: true,
  flags: {
    level: { type: 'string', value: 'LEVEL', help: 'lowest level shown: debug, info (default), notice, warning, error …' },
    follow: { type: 'boolean', short: 'f', help: 'then print new entries until Ctrl-C' },
  },
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-logs.js')).logsCommand(
      client,
      must(args[0], '<caller>'),
      { level: str(flags.level), follow: flags.follow === true },
      out,
    ),
};

const desktop: CtlCommand = {
  name: 'desktop',
  args: '<caller>',
  summary: "the caller's organized desktop (window:// resources)",
  caller: true,
  flags: {
    size: { type: 'string', value: 'N', help: 'at most N windows' },
    window: { type: 'string', value: 'URI', help: 'only this window' },
  },
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-context.js')).desktopCommand(
      client,
      must(args[0], '<caller>'),
      { size: str(flags.size), window: str(flags.window) },
      out,
    ),
};

const finder: CtlCommand = {
  name: 'finder',
  args: '<caller>',
  summary: "the caller's dpe:// documents",
  caller: true,
  flags: {
    keywords: { type: 'string', value: 'a,b', help: 'documents matching any of these keywords' },
    type: { type: 'string', value: 'T', help: 'only this file type (pdf, md, …)' },
    offset: { type: 'string', value: 'N', help: 'skip N documents' },
    limit: { type: 'string', value: 'N', help: 'at most N documents' },
  },
  run: async ({ client, args, flags, out }) =>
    (await import('./ctl-context.js')).finderCommand(
      client,
      must(args[0], '<caller>'),
      { keywords: str(flags.keywords), type: str(flags.type), offset: str(flags.offset), limit: str(flags.limit) },
      out,
    ),
};

const validate: CtlCommand = {
  name: 'validate',
  args: '',
  summary: 'check a profile store (--config DIR; no core needed)',
  offline: true,
  flags: {
    strict: { type: 'boolean', help: 'fail on warnings too (values not to be had here: an unset variable, an input without a value)' },
  },
  run: async ({ flags, out }) =>
    (await import('./validate-command.js')).validateCommand(configFrom(str(flags.config)), out.json, false, flags.strict === true),
};

const smcp: CtlCommand = {
  name: 'smcp',
  args: '<url> <command>',
  summary: 'an SMCP Agent: room, tools, call, desktop, finder, config, read, watch (mcpdctl smcp --help)',
  flags: SMCP_FLAGS,
  offline: true,
  run: () => Promise.resolve(2),
  passThrough: async (argv, io) => (await import('./ctl-smcp.js')).smcpCommand(argv, io.out, io.err),
};

const desktopHost: CtlCommand = {
  name: 'desktop-host',
  args: '<socket> <action>',
  summary: 'drive a Desktop Bridge host: health, doctor, observe, find, click, type, hotkey, wait (no core needed)',
  offline: true,
  run: () => Promise.resolve(2),
  passThrough: async (argv, io) => (await import('./ctl-desktop-host.js')).desktopHostCommand(argv, io.out, io.err),
};

const audit: CtlCommand = {
  name: 'audit',
  args: '<verify|tail>',
  summary: "check the store's audit log's hash chain (verify), or follow it live (tail)",
  details: 'verify exits 0 printing how many entries it checked, or 1 naming the first altered, removed or reordered line (docs/audit.md)',
  offline: true,
  flags: {
    caller: { type: 'string', value: 'C', help: "tail: only this caller's entries" },
    lines: { type: 'string', value: 'N', help: 'tail: how many existing entries to print first (default 10)' },
  },
  run: async ({ args, flags, out }) => {
    const { auditTailCommand, auditVerifyCommand } = await import('./ctl-audit.js');
    const configDir = configFrom(str(flags.config));
    const sub = must(args[0], '<verify|tail>');
    if (sub === 'verify') return auditVerifyCommand(configDir, out);
    if (sub !== 'tail') throw new Error(`audit: unknown subcommand "${sub}"; use verify or tail`);
    const lines = Number(str(flags.lines) ?? 10);
    if (!Number.isInteger(lines) || lines < 0) throw new Error(`audit tail: --lines must be a whole number, got "${str(flags.lines)}"`);
    return auditTailCommand(configDir, { caller: str(flags.caller), lines }, out);
  },
};

export const CTL_COMMANDS: readonly CtlCommand[] = [
  status,
  tools,
  call,
  tasks,
  reload,
  restart,
  stop,
  resources,
  read,
  prompts,
  logs,
  desktop,
  finder,
  validate,
  audit,
  importCmd,
  connectCmd,
  disconnectCmd,
  smcp,
  desktopHost,
  authCmd,
  pinsCmd,
  updateCmd,
  searchCmd,
  addCmd,
  {
    name: 'completion',
    args: '<bash|zsh|fish|install> [shell]',
    summary: 'print a shell completion script, or install one where the shell looks (completion install [shell])',
    offline: true,
    run: ({ args, out }) => Promise.resolve(completionCommand(args, CTL_COMMANDS, out.write)),
  },
];

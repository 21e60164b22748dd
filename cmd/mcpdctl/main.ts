#!/usr/bin/env node
import { escapeTerminal } from '../../internal/infra/cli/terminal-text.js';
import { assertSocketOwner } from '../../internal/infra/rpc/socket-path.js';
import { isMcpdError } from '../../internal/domain/errors.js';
import { packageVersion } from '../../internal/app/version.js';
import { COMMON_OPTIONS, configFrom, parseOrExit, socketFrom } from '../../internal/infra/cli/common-flags.js';
import {
  callCommand,
  completionCommand,
  connectCommand,
  importCommand,
  reloadCommand,
  stopCommand,
  statusCommand,
  toolsCommand,
  type Out,
} from '../../internal/infra/cli/ctl-commands.js';
import { placeFromProcess } from '../../internal/infra/cli/client-configs.js';
import { fileURLToPath } from 'node:url';
import { withStartProgress } from '../../internal/infra/cli/start-progress.js';
import { validateCommand } from '../../internal/infra/cli/validate-command.js';
import { promptsCommand, readCommand, resourcesCommand } from '../../internal/infra/cli/ctl-resources.js';
import { logsCommand } from '../../internal/infra/cli/ctl-logs.js';
import { desktopCommand, finderCommand } from '../../internal/infra/cli/ctl-context.js';
import { createControlClient, waitForReady } from '../../internal/infra/rpc/control-client.js';

const USAGE = `usage: mcpdctl [--socket PATH] [--json] <command>

  status                                   pools, instances, callers
  tools <caller>                           the caller's tool list
  call <caller> <tool> [--args JSON] [--timeout MS]
  reload                                   re-read the profile store now
  stop                                     stop the core gracefully (in-flight calls finish first)
  resources <caller>                       the caller's resources and resource templates
  read <caller> <uri>                      read one resource (dpe:// URIs included)
  prompts <caller>                         the caller's prompts
  logs <caller> [--level L] [--follow|-f]  the caller's recent log entries (--follow: then new ones until Ctrl-C)
  desktop <caller> [--size N] [--window URI]  the caller's organized desktop (window:// resources)
  finder <caller> [--keywords a,b] [--type T] [--offset N] [--limit N]  the caller's dpe:// documents
  validate [--config DIR]                  check a profile store (no core needed)
  import <FILE|claude-desktop|cursor|vscode> [--profile NAME] [--dry-run] [--force]
                                           turn a client's mcpServers / servers JSON into a profile
  connect <claude-desktop|cursor|vscode|claude-code> [--caller NAME] [--dry-run]
                                           make the client spawn mcpdmcp <caller> (backs up, shows the diff)
  disconnect <client> [--dry-run]          remove that entry again
  completion <bash|zsh|fish>               print a shell completion script`;

const { values, positionals } = parseOrExit(
  {
    options: {
      ...COMMON_OPTIONS,
      json: { type: 'boolean' },
      args: { type: 'string' },
      timeout: { type: 'string' },
      level: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      size: { type: 'string' },
      window: { type: 'string' },
      keywords: { type: 'string' },
      type: { type: 'string' },
      offset: { type: 'string' },
      limit: { type: 'string' },
      profile: { type: 'string' },
      'dry-run': { type: 'boolean' },
      force: { type: 'boolean' },
      caller: { type: 'string' },
    },
    allowPositionals: true,
  },
  USAGE,
);
if (values.help || positionals.length === 0) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(values.help ? 0 : 2);
}
if (values.version) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}

// Text for people is escaped (JSON output is escaped by JSON itself).
const out: Out = { json: Boolean(values.json), write: (s) => process.stdout.write(values.json ? s : escapeTerminal(s)) };
const progress = { isTTY: Boolean(process.stderr.isTTY) && !values.json, write: (s: string) => process.stderr.write(s) };
const [cmd, ...rest] = positionals;
const need = (n: number, what: string) => {
  if (rest.length < n) {
    process.stderr.write(`mcpdctl ${cmd} needs ${what}\n\n${USAGE}\n`);
    process.exit(2);
  }
};

if (cmd === 'validate') process.exit(await validateCommand(configFrom(values.config), out.json));
if (cmd === 'completion') process.exit(completionCommand(rest[0], (s) => process.stdout.write(s)));
if (cmd === 'import' || cmd === 'connect' || cmd === 'disconnect') {
  need(1, cmd === 'import' ? 'a file or a client name' : 'a client name');
  const common = { configDir: configFrom(values.config), dryRun: values['dry-run'], place: placeFromProcess() };
  const gatewayScript = fileURLToPath(new URL('../mcpdmcp/main.js', import.meta.url));
  try {
    process.exit(
      cmd === 'import'
        ? await importCommand(rest[0], { ...common, profile: values.profile, force: values.force }, out)
        : await connectCommand(
            rest[0],
            cmd === 'connect',
            { ...common, caller: values.caller, gatewayScript, node: process.execPath },
            out,
          ),
    );
  } catch (e) {
    process.stderr.write(`mcpdctl ${cmd}: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

const socket = socketFrom(values.socket);
const client = createControlClient(socket);
let code = 0;
try {
  assertSocketOwner(socket);
  await waitForReady(client, 3000).catch(() => {
    throw new Error(`no mcpd core at ${socket}; start one with \`make run\` or \`mcpd --config DIR\`, or pass --socket`);
  });
  switch (cmd) {
    case 'status':
      await statusCommand(client, out);
      break;
    case 'tools':
      need(1, 'a caller name');
      await withStartProgress(client, toolsCommand(client, rest[0], out), progress);
      break;
    case 'call':
      need(2, 'a caller and a tool name');
      code = await withStartProgress(
        client,
        callCommand(client, rest[0], rest[1], values.args ?? '{}', Number(values.timeout ?? 0), out),
        progress,
      );
      break;
    case 'logs':
      need(1, 'a caller name');
      code = await logsCommand(client, rest[0], { level: values.level, follow: values.follow }, out);
      break;
    case 'resources':
      need(1, 'a caller name');
      await resourcesCommand(client, rest[0], out);
      break;
    case 'read':
      need(2, 'a caller and a resource URI');
      await readCommand(client, rest[0], rest[1], out);
      break;
    case 'prompts':
      need(1, 'a caller name');
      await promptsCommand(client, rest[0], out);
      break;
    case 'desktop':
      need(1, 'a caller name');
      await desktopCommand(client, rest[0], { size: values.size, window: values.window }, out);
      break;
    case 'finder':
      need(1, 'a caller name');
      await finderCommand(
        client,
        rest[0],
        { keywords: values.keywords, type: values.type, offset: values.offset, limit: values.limit },
        out,
      );
      break;
    case 'reload':
      code = await reloadCommand(client, out);
      break;
    case 'stop':
      code = await stopCommand(client, out);
      break;
    default:
      process.stderr.write(`unknown command "${cmd}"\n\n${USAGE}\n`);
      code = 2;
  }
} catch (e) {
  process.stderr.write(`mcpdctl: ${isMcpdError(e) ? `${e.reason}: ` : ''}${(e as Error).message}\n`);
  code = 1;
} finally {
  client.close();
}
process.exit(code);

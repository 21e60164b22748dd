import type { CtlCommand, Out } from './ctl-command.js';
import { str } from './ctl-command.js';
import { McpdError } from '../shared/errors.js';

/**
 * `mcpdctl pins [SERVER]` shows the tools withheld because their definition changed since approved (a
 * diff each); `mcpdctl pins approve SERVER [TOOL]` accepts them. Offline: the pins are files in the
 * store's state directory, and the running core watches them (connected clients then get list_changed).
 */
export const pinsCmd: CtlCommand = {
  name: 'pins',
  args: '[approve|server] [server] [tool]',
  summary: 'tool definitions withheld because they changed since approved (a diff); pins approve SERVER [TOOL] accepts',
  details:
    'Tools are pinned on first sight, per server name, in the state directory of the store (the running\n' +
    "core's, else --config, MCPD_CONFIG or the user store). A changed or renamed tool is withheld from every\n" +
    'caller until approved here or on the dashboard.',
  offline: true,
  run: async ({ args, flags, socket, out }) => {
    const configDir = await storeOf(socket, str(flags.config));
    const { stateDirFor } = await import('../contract/store/state-dir.js');
    const stateDir = stateDirFor(configDir);
    if (args[0] === 'approve') {
      const server = args[1];
      if (server === undefined) throw new McpdError('INVALID_ARGUMENT', 'pins approve needs a server: mcpdctl pins approve SERVER [TOOL]');
      return approve(stateDir, server, args[2], out);
    }
    return show(stateDir, args[0], out);
  },
};

async function storeOf(socket: string, flag: string | undefined): Promise<string> {
  const { coreConfigDir, authConfigDir } = await import('./auth-command.js');
  return (await coreConfigDir(socket)) ?? authConfigDir(flag);
}

async function show(stateDir: string, server: string | undefined, out: Out): Promise<number> {
  const [{ readPins, pinnedServers }, { pinDiff }] = await Promise.all([
    import('../contract/pins/pin-files.js'),
    import('../contract/model/tool-pins.js'),
  ]);
  const servers = server === undefined ? pinnedServers(stateDir) : [server];
  const rows = servers.map((s) => ({ server: s, pins: readPins(stateDir, s) }));
  if (out.json) {
    const json = rows.map((r) => ({
      server: r.server,
      pinned: Object.keys(r.pins.tools).sort(),
      withheld: Object.values(r.pins.withheld),
    }));
    out.write(`${JSON.stringify(json)}\n`);
    return 0;
  }
  for (const { server: s, pins } of rows) {
    const withheld = Object.values(pins.withheld);
    out.write(`${s}: ${Object.keys(pins.tools).length} tools pinned, ${withheld.length} withheld\n`);
    for (const w of withheld) {
      for (const line of pinDiff(w)) out.write(`  ${line}\n`);
      out.write(`  accept with: mcpdctl pins approve ${s} ${w.name}\n`);
    }
  }
  if (rows.length === 0) out.write('no tools are pinned yet (a server is pinned the first time it is listed)\n');
  return 0;
}

async function approve(stateDir: string, server: string, tool: string | undefined, out: Out): Promise<number> {
  const [{ readPins, writePins }, { approvePins }] = await Promise.all([
    import('../contract/pins/pin-files.js'),
    import('../contract/model/tool-pins.js'),
  ]);
  const { next, approved } = approvePins(readPins(stateDir, server), tool);
  if (approved.length === 0) {
    const what = tool === undefined ? `server ${server} has no withheld tool` : `tool ${tool} of server ${server} is not withheld`;
    throw new McpdError('NOT_FOUND', `${what}; see them with: mcpdctl pins`);
  }
  writePins(stateDir, server, next);
  if (out.json) out.write(`${JSON.stringify({ server, approved })}\n`);
  else out.write(`approved ${approved.join(', ')} of ${server}; a running core offers them again and tells its clients (list_changed)\n`);
  return 0;
}

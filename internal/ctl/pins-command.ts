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
  summary:
    'tool, prompt and resource definitions withheld because they changed since approved (a diff); pins approve SERVER [NAME] accepts',
  details:
    'Tools are pinned on first sight, per server name, in the state directory of the store (the running\n' +
    "core's, else --config, MCPD_CONFIG or the user store). A changed or renamed tool is withheld from every\n" +
    'caller until approved here or on the dashboard.',
  offline: true,
  run: async ({ args, flags, socket, out }) => {
    const configDir = await storeOf(socket, str(flags.config));
    const { stateDirFor } = await import('../launch/state-dir.js');
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
  const [{ readPins, pinnedServers }, { pinDiff }, { AREA_NOUNS, AREA_SHAPES, PIN_AREAS }] = await Promise.all([
    import('../store/pin-files.js'),
    import('../contract/model/tool-pins.js'),
    import('../contract/model/item-pins.js'),
  ]);
  const all = new Set([...pinnedServers(stateDir), ...PIN_AREAS.flatMap((a) => pinnedServers(stateDir, a))]);
  const servers = server === undefined ? [...all].sort() : [server];
  const rows = servers.map((s) => ({
    server: s,
    pins: readPins(stateDir, s),
    areas: PIN_AREAS.map((area) => ({ area, pins: readPins(stateDir, s, area) })),
  }));
  if (out.json) {
    const json = rows.map((r) => ({
      server: r.server,
      pinned: Object.keys(r.pins.tools).sort(),
      withheld: Object.values(r.pins.withheld),
      ...Object.fromEntries(
        r.areas.map(({ area, pins }) => [area, { pinned: Object.keys(pins.tools).sort(), withheld: Object.values(pins.withheld) }]),
      ),
    }));
    out.write(`${JSON.stringify(json)}\n`);
    return 0;
  }
  for (const { server: s, pins, areas } of rows) {
    const withheld = Object.values(pins.withheld);
    const others = areas
      .map(({ area, pins: p }) => ({ area, n: Object.keys(p.tools).length, w: Object.values(p.withheld) }))
      .filter((a) => a.n > 0 || a.w.length > 0);
    const counts = others.map((a) => `, ${a.n} ${a.area} pinned${a.w.length ? ` (${a.w.length} withheld)` : ''}`).join('');
    out.write(`${s}: ${Object.keys(pins.tools).length} tools pinned, ${withheld.length} withheld${counts}\n`);
    for (const w of withheld) {
      for (const line of pinDiff(w)) out.write(`  ${line}\n`);
      out.write(`  accept with: mcpdctl pins approve ${s} ${w.name}\n`);
    }
    for (const a of others) {
      for (const w of a.w) {
        for (const line of pinDiff(w, AREA_SHAPES[a.area])) out.write(`  ${AREA_NOUNS[a.area]} ${line}\n`);
        out.write(`  accept with: mcpdctl pins approve ${s} ${w.name}\n`);
      }
    }
  }
  if (rows.length === 0) out.write('no tools are pinned yet (a server is pinned the first time it is listed)\n');
  return 0;
}

async function approve(stateDir: string, server: string, tool: string | undefined, out: Out): Promise<number> {
  const [{ readPins, writePins }, { approvePins }, { PIN_AREAS }] = await Promise.all([
    import('../store/pin-files.js'),
    import('../contract/model/tool-pins.js'),
    import('../contract/model/item-pins.js'),
  ]);
  const approved: string[] = [];
  // Tools first, then prompts, resources and templates: TOOL names whichever of them it is.
  for (const area of [undefined, ...PIN_AREAS]) {
    const r = approvePins(readPins(stateDir, server, area), tool);
    if (r.approved.length === 0) continue;
    writePins(stateDir, server, r.next, area);
    approved.push(...r.approved);
  }
  if (approved.length === 0) {
    const what = tool === undefined ? `server ${server} has no withheld tool` : `tool ${tool} of server ${server} is not withheld`;
    throw new McpdError('NOT_FOUND', `${what}; see them with: mcpdctl pins`);
  }
  if (out.json) out.write(`${JSON.stringify({ server, approved })}\n`);
  else out.write(`approved ${approved.join(', ')} of ${server}; a running core offers them again and tells its clients (list_changed)\n`);
  return 0;
}

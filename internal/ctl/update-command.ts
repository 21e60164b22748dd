import type { CtlCommand, Out } from './ctl-command.js';
import { str } from './ctl-command.js';
import { McpdError, formatIssue } from '../shared/errors.js';
import { must } from '../shared/must.js';

/**
 * `mcpdctl update SERVER [--dry-run]`: resolves the server's npx, uvx or pipx package again (what its profile entry asks
 * for, now), shows the change against the version and integrity it is pinned to, and accepts it. The
 * next instance the core starts runs the new version; running ones keep theirs until they stop.
 */
export const updateCmd: CtlCommand = {
  name: 'update',
  args: '<server>',
  summary: "show and accept a new version (or integrity) of a server's pinned npx, uvx or pipx package",
  details:
    'A server started through npx, uvx or pipx is pinned on its first start to the version and registry integrity its\n' +
    'package resolved to; a different one is refused until accepted here. Uses the store of the running core\n' +
    '(else --config, MCPD_CONFIG or the user store).',
  offline: true,
  flags: {
    caller: { type: 'string', value: 'NAME', help: "the server of this caller's profile (when several profiles name it)" },
    'dry-run': { type: 'boolean', help: 'show the change only' },
  },
  run: async ({ args, flags, socket, out }) => update(must(args[0], '<server>'), socket, flags, out),
};

async function update(server: string, socket: string, flags: Record<string, string | boolean | undefined>, out: Out): Promise<number> {
  const [{ coreConfigDir, authConfigDir, pickServer }, { loadStore }, { stateDirFor }, cmd, pins] = await Promise.all([
    import('./auth-command.js'),
    import('../store/index.js'),
    import('../launch/state-dir.js'),
    import('../store/package-command.js'),
    import('../store/package-pins.js'),
  ]);
  const configDir = (await coreConfigDir(socket)) ?? authConfigDir(str(flags.config));
  const loaded = await loadStore(configDir);
  if (!loaded.ok)
    throw new McpdError('INVALID_ARGUMENT', `the profile store ${configDir} is invalid:\n${loaded.issues.map(formatIssue).join('\n')}`);
  const spec = pickServer(loaded.store, server, str(flags.caller));
  const p = cmd.packageCommand(spec.cmd);
  if (!p)
    throw new McpdError(
      'INVALID_ARGUMENT',
      `server ${server} is not started through npx, uvx or pipx with a registry package (cmd: ${spec.cmd.join(' ')}); nothing to update`,
    );
  const stateDir = stateDirFor(configDir);
  const before = pins.readPackagePin(stateDir, spec.name);
  const now = await pins.resolvePackage(p, { ...process.env, ...spec.env });
  const same = before && before.name === now.name && before.version === now.version && before.integrity === now.integrity;
  if (out.json)
    out.write(
      `${JSON.stringify({ server, before: before ?? null, after: now, changed: !same, accepted: !same && flags['dry-run'] !== true })}\n`,
    );
  else {
    out.write(`${server}: ${p.name}@${p.requested}\n`);
    if (same) out.write(`  up to date: ${now.version} (${now.integrity})\n`);
    else {
      if (before) out.write(`- ${before.name}@${before.version} (${before.integrity})\n`);
      out.write(`+ ${now.name}@${now.version} (${now.integrity})\n`);
    }
  }
  if (same || flags['dry-run'] === true) return 0;
  pins.writePackagePin(stateDir, spec.name, now);
  if (!out.json) out.write(`accepted: new instances of ${server} start ${now.name}@${now.version}\n`);
  return 0;
}

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CtlCommand, Out } from './ctl-command.js';
import { str } from './ctl-command.js';
import { McpdError } from '../shared/errors.js';
import { must } from '../shared/must.js';
import { escapeTerminal as terminalText } from './terminal-text.js';

/** The store these commands work on: the running core's, else --config, MCPD_CONFIG or the user store. */
async function storeDir(socket: string, flag: string | undefined): Promise<string> {
  const { coreConfigDir, authConfigDir } = await import('./auth-command.js');
  return (await coreConfigDir(socket)) ?? authConfigDir(flag);
}

/** `mcpdctl search TEXT`: servers of the MCP Registry (v0.1 API) whose name or description matches. */
export const searchCmd: CtlCommand = {
  name: 'search',
  args: '<text>',
  summary: 'search the MCP Registry (runtime.yaml registry.url; default the official one)',
  offline: true,
  run: async ({ args, flags, socket, out }) => {
    const { registryUrl, searchRegistry } = await import('./registry/registry-client.js');
    const base = registryUrl(await storeDir(socket, str(flags.config)));
    const found = await searchRegistry(base, must(args[0], '<text>'));
    if (out.json) out.write(`${JSON.stringify(found)}\n`);
    else {
      for (const e of found) {
        const pkg =
          e.server.packages?.map((p) => `${p.registryType}:${p.identifier}`).join(', ') || (e.server.remotes?.length ? 'remote' : '');
        out.write(
          `${terminalText(e.server.name)} ${terminalText(e.server.version)}  ${terminalText(pkg)}\n  ${terminalText(e.server.description ?? '')}\n`,
        );
      }
      if (found.length === 0) out.write(`nothing in ${base} matches "${terminalText(args[0] ?? '')}"\n`);
    }
    return 0;
  },
};

/** `mcpdctl add NAME`: a registry server into a profile, pinned, sandboxed, asking for its required values. */
export const addCmd: CtlCommand = {
  name: 'add',
  args: '<name>',
  summary: 'add a server from the MCP Registry to a profile (pinned version, proposed sandbox, inputs; shows the diff)',
  offline: true,
  flags: {
    profile: { type: 'string', value: 'NAME', help: 'the profile to add it to (default: default)' },
    as: { type: 'string', value: 'NAME', help: "the server's name in the profile (default: the registry name's last part)" },
    version: { type: 'string', value: 'V', help: 'a version of the registry entry (default: latest)' },
    'dry-run': { type: 'boolean', help: 'show the diff only' },
  },
  run: async ({ args, flags, socket, out }) => add(must(args[0], '<name>'), await storeDir(socket, str(flags.config)), flags, out),
};

async function add(name: string, dir: string, flags: Record<string, string | boolean | undefined>, out: Out): Promise<number> {
  const [{ registryUrl, registryEntry }, { npmPackageOf, proposeServer, serverNameOf }, { withServer }] = await Promise.all([
    import('./registry/registry-client.js'),
    import('./registry/registry-add.js'),
    import('./registry/profile-edit.js'),
  ]);
  const entry = await registryEntry(registryUrl(dir), name, str(flags.version));
  const pkg = npmPackageOf(entry);
  if (typeof pkg === 'string') throw new McpdError('FAILED_PRECONDITION', `cannot add ${name}: ${pkg}`);
  const serverName = str(flags.as) ?? serverNameOf(entry.server.name);
  const proposal = proposeServer(entry, pkg, serverName);
  const file = join(dir, 'profiles', `${str(flags.profile) ?? 'default'}.yaml`);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const after = withServer(before, file, proposal.entry, proposal.inputs);
  writeDiff(file, before, after, out);
  for (const n of proposal.notes) out.write(`note: ${n}\n`);
  if (flags['dry-run'] === true) return 0;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, after);
  out.write(`added ${serverName} (${pkg.identifier}@${pkg.version ?? entry.server.version}) to ${file}\n`);
  return 0;
}

/** The lines that differ, `-` before and `+` after (profiles are small: a line diff by position of the common head and tail). */
function writeDiff(file: string, before: string, after: string, out: Out): void {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  out.write(`--- ${file}\n+++ ${file}\n`);
  for (const l of a.slice(head, a.length - tail)) out.write(`-${l}\n`);
  for (const l of b.slice(head, b.length - tail)) out.write(`+${l}\n`);
}

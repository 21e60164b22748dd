import { proposeSandbox } from '../sandbox-proposal.js';
import type { RegistryArgument, RegistryEntry, RegistryPackage } from './registry-client.js';

/** An argument the server reads as a path: its value becomes a filesystem grant once the user gives it. */
const isPathArgument = (a: RegistryArgument): boolean =>
  a.format === 'filepath' || /(^|[_\s-])(dir|directory|folder|path|file|root)s?($|[_\s-])/i.test(a.valueHint ?? a.name ?? '');

/** A profile entry proposed from a registry entry, and the inputs it asks for. */
export interface ProposedServer {
  entry: Record<string, unknown>;
  inputs: Record<string, unknown>[];
  notes: string[];
}

/** A server name from a registry name: its last segment, in the characters a server name may use. */
export function serverNameOf(registryName: string): string {
  const last = registryName.split('/').pop() ?? registryName;
  return last.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
}

/** The npm package `add` can run (stdio through npx), or why there is none. */
export function npmPackageOf(e: RegistryEntry): RegistryPackage | string {
  const pkgs = e.server.packages ?? [];
  const npm = pkgs.find((p) => p.registryType === 'npm' && (p.transport?.type ?? 'stdio') === 'stdio');
  if (npm) return npm;
  const kinds = pkgs.map((p) => `${p.registryType}/${p.transport?.type ?? '?'}`);
  return `no npm package on stdio (it offers ${kinds.length ? kinds.join(', ') : 'no packages'}${e.server.remotes?.length ? ', and remotes' : ''})`;
}

/**
 * The entry for a registry server's npm package: npx at the entry's exact version, every required
 * variable and argument asked for as `${input:…}` (secret ones as passwords), and a proposed sandbox:
 * path arguments (given or asked for) granted read-write, URLs and known credentials' API hosts allowed.
 */
export function proposeServer(e: RegistryEntry, pkg: RegistryPackage, name: string): ProposedServer {
  const inputs: Record<string, unknown>[] = [];
  const notes: string[] = [];
  const ask = (a: RegistryArgument, what: string): string => {
    const id = `${name}-${(a.name ?? a.valueHint ?? what)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')}`;
    inputs.push({
      id,
      type: 'promptString',
      description: a.description ?? `${what} of ${e.server.name}`,
      ...(a.isSecret ? { password: true } : {}),
    });
    return `\${input:${id}}`;
  };
  const version = pkg.version ?? e.server.version;
  const cmd: string[] = ['npx', '-y', `${pkg.identifier}@${version}`];
  const asked: string[] = [];
  for (const a of pkg.packageArguments ?? []) {
    const value = a.value ?? a.default ?? (a.isRequired ? ask(a, 'argument') : undefined);
    if (value === undefined) continue;
    if (value.startsWith('${input:') && isPathArgument(a)) asked.push(value);
    if (a.type === 'named' && a.name) cmd.push(a.name, value);
    else cmd.push(value);
  }
  const env: Record<string, string> = {};
  for (const v of pkg.environmentVariables ?? []) {
    if (!v.name) continue;
    if (v.value !== undefined) env[v.name] = v.value;
    else if (v.isRequired) env[v.name] = ask(v, 'variable');
    else notes.push(`optional variable ${v.name}${v.description ? ` (${v.description})` : ''} is not set`);
  }
  const entry: Record<string, unknown> = { name, cmd, ...(Object.keys(env).length ? { env } : {}) };
  const proposal = proposeSandbox(cmd.slice(1), env);
  const { sandbox } = proposal;
  for (const value of asked) {
    sandbox.filesystem.write.push(value);
    proposal.reasons.push(`filesystem.write ${value}: the path the server is given there`);
  }
  entry.sandbox = sandbox;
  for (const r of proposal.reasons) notes.push(`sandbox: ${r}`);
  notes.push(
    'the proposed sandbox grants only what the entry names: add what else the server needs to sandbox.filesystem and sandbox.network.allow',
  );
  return { entry, inputs, notes };
}

import type { RegistryArgument, RegistryEntry, RegistryPackage } from './registry-client.js';

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
 * variable and argument asked for as `${input:…}` (secret ones as passwords), and a sandbox with no grants.
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
  for (const a of pkg.packageArguments ?? []) {
    const value = a.value ?? a.default ?? (a.isRequired ? ask(a, 'argument') : undefined);
    if (value === undefined) continue;
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
  entry.sandbox = { filesystem: { read: [], write: [] }, network: { allow: [] } };
  notes.push(
    'the proposed sandbox grants no files and no network: add what the server needs to sandbox.filesystem and sandbox.network.allow',
  );
  return { entry, inputs, notes };
}

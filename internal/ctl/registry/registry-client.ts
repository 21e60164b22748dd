import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { McpdError } from '../../shared/errors.js';

/** The official MCP Registry; runtime.yaml `registry: { url }` names another (a company's own). */
const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** The parts of a v0.1 `server.json` that `mcpdctl add` uses. */
export interface RegistryArgument {
  name?: string;
  type?: 'named' | 'positional';
  value?: string;
  valueHint?: string;
  /** `string`, `number`, `boolean` or `filepath`. */
  format?: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
}
export interface RegistryPackage {
  registryType: string;
  identifier: string;
  version?: string;
  transport?: { type: string };
  environmentVariables?: RegistryArgument[];
  packageArguments?: RegistryArgument[];
  runtimeHint?: string;
}
interface RegistryServer {
  name: string;
  description?: string;
  version: string;
  packages?: RegistryPackage[];
  remotes?: { type: string; url: string }[];
}
export interface RegistryEntry {
  server: RegistryServer;
  _meta?: Record<string, unknown>;
}

/** runtime.yaml's `registry.url` of the store, else the official registry. */
export function registryUrl(storeDir: string): string {
  try {
    const rt = parse(readFileSync(join(storeDir, 'runtime.yaml'), 'utf8')) as { registry?: { url?: string } } | null;
    return (rt?.registry?.url ?? DEFAULT_REGISTRY_URL).replace(/\/+$/, '');
  } catch {
    // No runtime.yaml (or one the core reports as invalid): the official registry.
    return DEFAULT_REGISTRY_URL;
  }
}

async function getJson(url: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new McpdError('UNAVAILABLE', `cannot reach the MCP registry at ${url}: ${(e as Error).message}`);
  }
  if (res.status === 404) throw new McpdError('NOT_FOUND', `the MCP registry has no such entry (${url})`);
  if (!res.ok) throw new McpdError('UNAVAILABLE', `the MCP registry answered ${res.status} for ${url}`);
  return res.json();
}

/** `GET /v0.1/servers?search=TEXT` (latest versions only). */
export async function searchRegistry(base: string, text: string, limit = 30): Promise<RegistryEntry[]> {
  const q = new URLSearchParams({ search: text, version: 'latest', limit: String(limit) });
  const body = (await getJson(`${base}/v0.1/servers?${q}`)) as { servers?: RegistryEntry[] };
  return body.servers ?? [];
}

/** `GET /v0.1/servers/{name}/versions/{version}`; `latest` by default. */
export async function registryEntry(base: string, name: string, version = 'latest'): Promise<RegistryEntry> {
  return (await getJson(`${base}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`)) as RegistryEntry;
}

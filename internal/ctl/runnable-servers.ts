import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify } from 'yaml';
import type { InputDef } from '../contract/model/profile.js';
import type { CallerProfile } from './caller-profile.js';
import { missingValues } from './import-missing-values.js';

/** A server of the caller's profile, and why mcpd cannot run it now (undefined: it can). */
export interface ProfileServer {
  name: string;
  cannotRun?: string;
}

interface ProfileDoc {
  inputs?: InputDef[];
  servers?: ({ name?: unknown; disabled?: unknown } & Record<string, unknown>)[];
}

function readProfile(file: string): ProfileDoc | undefined {
  try {
    return parseYaml(readFileSync(file, 'utf8')) as ProfileDoc | undefined;
  } catch {
    // No such file or not YAML: no servers (validate reports a broken store).
    return undefined;
  }
}

/**
 * The servers of the caller's profile, each with what keeps mcpd from running it: disabled, or a value
 * it uses that is set nowhere (an unset `${VAR}`, an `${input:id}` without a value). `connect --move`
 * takes a server out of a client only when mcpd can run it, so nothing the user had stops working.
 */
export function profileServers(p: CallerProfile, storeDir: string, env: NodeJS.ProcessEnv = process.env): ProfileServer[] {
  const doc = readProfile(p.file);
  const inputs = Array.isArray(doc?.inputs) ? doc.inputs : [];
  return (doc?.servers ?? []).flatMap((s) => {
    if (typeof s?.name !== 'string') return [];
    if (s.disabled === true) return [{ name: s.name, cannotRun: 'it is disabled in the profile' }];
    const missing = missingValues(stringify(s), inputs, storeDir, env);
    const unset = [...missing.variables.map((v) => `\${${v}}`), ...missing.inputs.map((i) => `\${input:${i}}`)];
    return [unset.length ? { name: s.name, cannotRun: `no value for ${unset.join(', ')}` } : { name: s.name }];
  });
}

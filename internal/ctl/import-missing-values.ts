import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { InputDef } from '../contract/model/profile.js';
import { inputEnvName } from '../store/index.js';

/** What an imported profile uses that has no value yet: the user's to give before those servers can run. */
export interface MissingValues {
  /** `${VAR}` without a fallback that mcpd's environment (this one) does not set. */
  variables: string[];
  /** `${input:id}` with no MCPD_INPUT_* variable, no runtime.yaml inputValues entry and no default. */
  inputs: string[];
}

/** runtime.yaml `inputValues` of the store, when it has any. */
function storeInputValues(storeDir: string): Record<string, unknown> {
  try {
    const doc = parse(readFileSync(join(storeDir, 'runtime.yaml'), 'utf8')) as { inputValues?: Record<string, unknown> } | null;
    return doc?.inputValues ?? {};
  } catch {
    // No runtime.yaml (or a broken one, which validate reports): no values from there.
    return {};
  }
}

export function missingValues(yaml: string, inputs: InputDef[], storeDir: string, env: NodeJS.ProcessEnv = process.env): MissingValues {
  const names = [...yaml.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map(([, name = '']) => name);
  const ids = [...yaml.matchAll(/(?<!\$)\$\{input:([^}]+)\}/g)].map(([, id = '']) => id);
  const given = storeInputValues(storeDir);
  const hasValue = (id: string) => {
    const def = inputs.find((i) => i.id === id);
    return (
      env[inputEnvName(id)] !== undefined || given[id] !== undefined || (def !== undefined && 'default' in def && def.default !== undefined)
    );
  };
  return {
    variables: [...new Set(names)].filter((n) => env[n] === undefined),
    inputs: [...new Set(ids)].filter((id) => !hasValue(id)),
  };
}

/** The lines that ask for the missing values, one for the variables and one for the inputs. */
export function missingValueLines(m: MissingValues): string[] {
  const lines: string[] = [];
  if (m.variables.length)
    lines.push(
      `set ${m.variables.join(', ')} in mcpd's environment (or give a fallback: \${NAME:-value}): until then the core leaves this server out (unavailable, with the reason in status)`,
    );
  if (m.inputs.length)
    lines.push(
      `give ${m.inputs.map((id) => `\${input:${id}}`).join(', ')} a value (${m.inputs.map(inputEnvName).join(', ')} in mcpd's environment, inputValues in runtime.yaml, or a default in the profile): until then the core leaves this server out (unavailable, with the reason in status)`,
    );
  return lines;
}

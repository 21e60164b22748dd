import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scaffoldStore, writeStoreSchemas } from '../store/index.js';
import { holdsStore, userStoreDir } from '../launch/store-location.js';

/** Where `mcpd init` writes: --config, else MCPD_CONFIG, else the user's store (never just the current directory). */
export function initTarget(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag || env.MCPD_CONFIG || userStoreDir(env));
}

/**
 * `mcpd init [--config DIR]`: a starter store with JSON Schemas its files point to. On an existing
 * store only the schemas are rewritten (they follow the installed version); no file is overwritten.
 */
export async function initCommand(dir: string, write: (s: string) => void): Promise<number> {
  if (holdsStore(dir)) {
    await writeStoreSchemas(dir);
    write(`${dir} already holds a profile store; its JSON Schemas (.schema/) were refreshed, nothing else changed\n`);
    return 0;
  }
  const created = await scaffoldStore(dir);
  write(`created a profile store in ${dir}:\n${created.map((f) => `  ${f}`).join('\n')}\n`);
  const profile = join(dir, 'profiles', 'default.yaml');
  const sandboxed = created.includes(profile) && /^sandbox: true$/m.test(readFileSync(profile, 'utf8'));
  write(
    sandboxed
      ? 'servers you add to profiles/default.yaml run sandboxed (its "sandbox: true"; a server\'s own "sandbox: false" opts it out; docs/sandbox.md)\n'
      : `servers run unsandboxed: ${profile} says why ("# sandbox: true")\n`,
  );
  write(
    `next: add servers to profiles/default.yaml (or "mcpdctl import claude-desktop --config ${dir}"), ` +
      `then "mcpdctl connect <client>" and start your client\n`,
  );
  return 0;
}

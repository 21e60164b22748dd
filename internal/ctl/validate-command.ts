import { resolve } from 'node:path';
import { formatIssue } from '../shared/errors.js';
import { validateStoreDir } from '../contract/store/index.js';

/**
 * `validate`: every problem at once, with file, line and field; exit code 1 when there is any. Command
 * inputs run only with `runCommands` (`mcpd validate --run-commands`).
 */
export async function validateCommand(dir: string, json: boolean, runCommands = false): Promise<number> {
  const issues = await validateStoreDir(resolve(dir), process.env, runCommands);
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: issues.length === 0, issues }, null, 2)}\n`);
  } else if (issues.length === 0) {
    process.stdout.write(`${resolve(dir)}: configuration is valid\n`);
  } else {
    for (const i of issues) process.stdout.write(`${formatIssue(i)}\n`);
    process.stdout.write(`${issues.length} problem${issues.length === 1 ? '' : 's'} found\n`);
  }
  return issues.length === 0 ? 0 : 1;
}

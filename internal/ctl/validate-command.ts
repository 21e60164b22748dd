import { resolve } from 'node:path';
import { formatIssue } from '../shared/errors.js';
import { validateStore } from '../store/index.js';

/**
 * `validate`: every problem at once, with file, line and field. Errors (the store would not load) give
 * exit code 1; warnings (a value not to be had here: an unset variable, an input without a value — the
 * core runs without that server) are printed as such and fail only with `strict`. Command inputs run
 * only with `runCommands` (`mcpd validate --run-commands`).
 */
export async function validateCommand(dir: string, json: boolean, runCommands = false, strict = false): Promise<number> {
  const { errors, warnings } = await validateStore(resolve(dir), process.env, runCommands);
  const failed = errors.length > 0 || (strict && warnings.length > 0);
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: !failed, issues: errors, warnings }, null, 2)}\n`);
  } else {
    for (const i of errors) process.stdout.write(`${formatIssue(i)}\n`);
    for (const w of warnings) process.stdout.write(`warning: ${formatIssue(w)}\n`);
    process.stdout.write(`${summary(resolve(dir), errors.length, warnings.length, strict)}\n`);
  }
  return failed ? 1 : 0;
}

function summary(dir: string, errors: number, warnings: number, strict: boolean): string {
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
  if (errors === 0 && warnings === 0) return `${dir}: configuration is valid`;
  if (errors > 0) return `${n(errors, 'problem')} found${warnings ? `, ${n(warnings, 'warning')}` : ''}`;
  return `${dir}: configuration is valid, ${n(warnings, 'warning')} (servers left out until their values are set)${strict ? '; --strict fails on warnings' : ''}`;
}

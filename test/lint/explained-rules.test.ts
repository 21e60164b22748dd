import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { explainedPlugin } from '../../scripts/eslint-explained.mjs';
import { REPO } from '../support/paths.js';

const CASES = join(REPO, 'test/lint/explained-cases.ts');
const lines = readFileSync(CASES, 'utf8').split('\n');
/** 1-based line of the first line that is exactly `text` once trimmed. */
const lineOf = (text: string, from = 0): number => lines.findIndex((l, i) => i >= from && l.trim() === text) + 1;

async function reports(): Promise<{ rule: string; line: number }[]> {
  const eslint = new ESLint({
    cwd: REPO,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['test/lint/explained-cases.ts'],
        languageOptions: {
          parser: (await import('typescript-eslint')).parser,
          parserOptions: { project: ['./test/lint/tsconfig.json'], tsconfigRootDir: REPO },
        },
        plugins: { explained: explainedPlugin },
        rules: { 'explained/fire-and-forget': 'error', 'explained/swallowed-error': 'error' },
      },
    ],
  });
  const [result] = await eslint.lintFiles([CASES]);
  if (!result) throw new Error('ESLint returned no result for the cases file');
  const fatal = result.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`the cases file did not parse: ${fatal.message}`);
  return result.messages.map((m) => ({ rule: m.ruleId ?? '', line: m.line }));
}

describe('explained/* ESLint rules (decision 39)', () => {
  it('report exactly the unexplained fire-and-forget promises and swallowed errors', async () => {
    const bareVoid = lineOf('void later();');
    expect(bareVoid).toBeGreaterThan(0);
    expect(await reports()).toEqual([
      { rule: 'explained/fire-and-forget', line: bareVoid },
      { rule: 'explained/swallowed-error', line: lineOf('later().catch(() => {});') },
      { rule: 'explained/swallowed-error', line: lineOf('later().catch(() => undefined);') },
      { rule: 'explained/swallowed-error', line: lineOf('} catch {}') },
    ]);
  }, 120_000);
});

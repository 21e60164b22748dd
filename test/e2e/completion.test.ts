import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MCPDCTL } from '../support/paths.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mcpd-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function has(shell: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function script(shell: string): Promise<string> {
  const { stdout } = await run(process.execPath, [MCPDCTL, 'completion', shell]);
  const file = join(dir, `mcpdctl.${shell}`);
  writeFileSync(file, stdout);
  return file;
}

/** Each shell's own completion machinery, driven as the shell would on <Tab>. */
describe('mcpdctl completion', () => {
  it('bash: commands, then client names after connect, flags after import', async () => {
    const f = await script('bash');
    const probe = (words: string[]) =>
      `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _mcpdctl; echo "\${COMPREPLY[*]}"`;
    const { stdout } = await run('bash', [
      '-c',
      [
        `source ${JSON.stringify(f)}`,
        probe(['mcpdctl', 'dis']),
        probe(['mcpdctl', 'connect', 'cu']),
        probe(['mcpdctl', 'import', '--d']),
      ].join('; '),
    ]);
    expect(stdout.split('\n').slice(0, 3)).toEqual(['disconnect', 'cursor', '--dry-run']);
  });

  it.skipIf(!has('zsh'))('zsh: the same words through compadd', async () => {
    const f = await script('zsh');
    const { stdout } = await run('zsh', [
      '-c',
      `compdef() {}; _files() {}; compadd() { shift; print -r -- "$*" }; source ${JSON.stringify(f)}; words=(mcpdctl connect cl); CURRENT=3; _mcpdctl`,
    ]);
    expect(stdout.trim().split(' ').slice(0, 4)).toEqual(['claude-desktop', 'cursor', 'vscode', 'claude-code']);
  });

  it.skipIf(!has('fish'))('fish: complete -C gives the same words', async () => {
    const f = await script('fish');
    const { stdout } = await run('fish', [
      '-c',
      `source ${JSON.stringify(f)}; complete -C 'mcpdctl connect cl'; complete -C 'mcpdctl compl'`,
    ]);
    expect(stdout.trim().split('\n')).toEqual(['claude-code', 'claude-desktop', 'completion']);
  });

  it('names the shells it knows when asked for another', async () => {
    await expect(run(process.execPath, [MCPDCTL, 'completion', 'tcsh'])).rejects.toMatchObject({
      stdout: 'usage: mcpdctl completion <bash|zsh|fish>\n',
    });
  });
});

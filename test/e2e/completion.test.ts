import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
      stdout: expect.stringMatching(/^usage: mcpdctl completion <bash\|zsh\|fish> .*\n.*mcpdctl completion install \[bash\|zsh\|fish\]/),
    });
  });
});

/**
 * `mcpdctl completion install`: in a fresh HOME (no directory exists yet) it writes the script where
 * the shell looks and says how to activate it; each real shell, started as a user would start it with
 * that activation in place, then completes mcpdctl.
 */
describe('mcpdctl completion install', () => {
  /** A fresh HOME with nothing in it, and no variable that would send the install elsewhere. */
  function freshHome(): NodeJS.ProcessEnv {
    const home = mkdtempSync(join(dir, 'home-'));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    for (const v of ['XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'ZDOTDIR', 'BASH_COMPLETION_USER_DIR']) delete env[v];
    return env;
  }

  async function install(shell: string, env: NodeJS.ProcessEnv): Promise<{ file: string; activation: string; stdout: string }> {
    const { stdout } = await run(process.execPath, [MCPDCTL, 'completion', 'install'], { env: { ...env, SHELL: `/usr/bin/${shell}` } });
    const file = /^wrote the \S+ completion for mcpdctl to (\S+)$/m.exec(stdout)?.[1] ?? '';
    expect(file.startsWith(`${env.HOME}/`)).toBe(true);
    expect(existsSync(file)).toBe(true);
    // The activation line, where there is one: the indented line after "to activate:".
    const activation = /^to activate:.*\n {2}(.+)$/m.exec(stdout)?.[1] ?? '';
    return { file, activation, stdout };
  }

  it("bash: into bash-completion's user directory; the printed line in ~/.bashrc makes an interactive bash complete", async () => {
    const env = freshHome();
    const { file, activation } = await install('bash', env);
    expect(file).toBe(join(env.HOME ?? '', '.local/share/bash-completion/completions/mcpdctl'));
    expect(activation).toBe(`source ${file}`);
    writeFileSync(join(env.HOME ?? '', '.bashrc'), `${activation}\n`);
    const { stdout } = await run('bash', ['-i', '-c', 'COMP_WORDS=(mcpdctl connect cu); COMP_CWORD=2; _mcpdctl; echo "${COMPREPLY[*]}"'], {
      env,
    });
    expect(stdout.trim()).toBe('cursor');
  });

  it('zsh: into a site-functions directory; the printed line in ~/.zshrc lets compinit find it', async () => {
    const env = freshHome();
    const { file, activation } = await install('zsh', env);
    expect(file).toBe(join(env.HOME ?? '', '.local/share/zsh/site-functions/_mcpdctl'));
    writeFileSync(join(env.HOME ?? '', '.zshrc'), `${activation}\n`);
    // compinit registered the autoloaded function for mcpdctl; calling it (compadd stubbed) completes.
    const { stdout } = await run(
      'zsh',
      [
        '-i',
        '-c',
        'print -r -- "comps=$_comps[mcpdctl]"; compadd() { shift; print -r -- "$*" }; words=(mcpdctl connect cl); CURRENT=3; _mcpdctl',
      ],
      { env },
    );
    const [comps, words] = stdout.trim().split('\n');
    expect(comps).toBe('comps=_mcpdctl');
    expect(words?.split(' ').slice(0, 4)).toEqual(['claude-desktop', 'cursor', 'vscode', 'claude-code']);
  });

  it('fish: into ~/.config/fish/completions, which fish loads by itself', async () => {
    const env = freshHome();
    const { file, activation, stdout: said } = await install('fish', env);
    expect(file).toBe(join(env.HOME ?? '', '.config/fish/completions/mcpdctl.fish'));
    expect(activation).toBe('');
    expect(said).toContain('nothing to add');
    // fish loads a command's completions once the command is on PATH, as an installed mcpdctl is.
    const bin = join(env.HOME ?? '', 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'mcpdctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(MCPDCTL)} "$@"\n`, {
      mode: 0o755,
    });
    const { stdout, stderr } = await run('fish', ['-c', "complete -C 'mcpdctl connect cl'; complete -C 'mcpdctl status -'"], {
      env: { ...env, PATH: `${bin}:${env.PATH ?? ''}` },
    });
    expect(stderr).toBe(''); // the file loads without an error
    const words = stdout.trim().split('\n');
    expect(words.slice(0, 2)).toEqual(['claude-code', 'claude-desktop']);
    expect(words).toContain('--json');
  });

  it('without a shell it asks for one when SHELL names none it knows', async () => {
    const env = { ...freshHome(), SHELL: '/bin/tcsh' };
    await expect(run(process.execPath, [MCPDCTL, 'completion', 'install'], { env })).rejects.toMatchObject({
      stderr: expect.stringContaining('say which shell: mcpdctl completion install <bash|zsh|fish> (SHELL is "/bin/tcsh")'),
    });
  });
});

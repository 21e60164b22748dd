import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPD, MCPDCTL } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

/** What Codex gives the MCP servers it starts (and so a gateway, and a core that gateway starts). */
function codexEnv(world: TestWorld, home: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    TERM: 'dumb',
    MCPD_TEST_TAG: world.tag,
  };
}

/** A HOME whose login shell exports a token the way many users do: in ~/.bashrc, sourced by ~/.bash_profile. */
function home(world: TestWorld): string {
  const dir = join(world.dir, 'home');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.bash_profile'), '[ -f ~/.bashrc ] && . ~/.bashrc\n');
  // Debian's ~/.bashrc returns at once in a non-interactive shell: the token is set only in an interactive one.
  writeFileSync(
    join(dir, '.bashrc'),
    'case $- in *i*) ;; *) return;; esac\necho "welcome back"\nexport LOGIN_TOKEN=from-the-login-shell\n',
  );
  return dir;
}

describe("servers' environment does not depend on which client started the core", () => {
  let world: TestWorld | undefined;
  afterEach(async () => world?.cleanup());

  it('a core started with only HOME, PATH, LANG, SHELL, TERM resolves the login environment and the store’s envFile; status says where a missing value was looked for', async () => {
    const w = new TestWorld({
      'runtime.yaml': 'metricsAddress: ""\nenvFile: secrets.env\nenv:\n  FROM_STORE: store-value\n',
      'secrets.env': '# values for ${VAR}\nexport FILE_TOKEN="from the env file"\n',
      'profiles/default.yaml': profile(
        echoServer('echo', {}, { GOT_LOGIN: '${LOGIN_TOKEN}', GOT_FILE: '${FILE_TOKEN}', GOT_STORE: '${FROM_STORE}' }),
        echoServer('needy', {}, { NEEDS: '${NOT_SET_ANYWHERE_36}' }),
      ),
    });
    world = w;
    const env = codexEnv(w, home(w));
    const core = spawn(process.execPath, [MCPD, '--config', w.configDir, '--socket', w.socket], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    w.cores.push(core);
    core.stderr.setEncoding('utf8');
    core.stderr.on('data', (d: string) => w.coreLog.push(d));
    await w.waitForLogLine('the core to start', /"core started"/);

    const call = async (name: string) => {
      const r = await run(
        process.execPath,
        [MCPDCTL, 'call', 'codex', 'echo__env', '--args', JSON.stringify({ name }), '--socket', w.socket],
        {
          env,
        },
      );
      return r.stdout.trim();
    };
    expect(await call('GOT_LOGIN')).toContain('from-the-login-shell');
    expect(await call('GOT_FILE')).toContain('from the env file');
    expect(await call('GOT_STORE')).toContain('store-value');

    const st = await run(process.execPath, [MCPDCTL, 'status', '--socket', w.socket, '--json'], { env });
    const text = st.stdout;
    expect(text).toContain('environment variable \\"NOT_SET_ANYWHERE_36\\" is not set');
    expect(text).toContain('runtime.yaml env:');
    expect(text).toContain(`the envFile ${join(w.configDir, 'secrets.env')}`);
    expect(text).toContain('the login environment of /bin/bash -l -i');
  });
});

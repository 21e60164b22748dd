import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/paths.js';
import { killTagged, pidsWithTag, waitFor } from '../support/procs.js';
import { randomUUID } from 'node:crypto';

const run = promisify(execFile);
// npm ci, a pack, a global install, three cold tsc runs: minutes each on a loaded 2-core machine (two suites at
// once took over two minutes for the tsc runs alone). A bound for a hung step, not a speed check.
const INSTALL_TIMEOUT_MS = 400_000;

/**
 * The package as users get it, by the README's quick start: a fresh clone, `npm ci && npm pack`,
 * `npm install -g ./mcpd-*.tgz` into a temporary prefix, then the installed binaries from an empty
 * directory with an empty HOME (`mcpd init`, `mcpd`, `mcpdctl status`): only production dependencies exist there.
 */
describe('installed package (npm pack → npm i -g)', { timeout: INSTALL_TIMEOUT_MS }, () => {
  const root = mkdtempSync(join(tmpdir(), 'mcpd-install-'));
  const prefix = join(root, 'prefix');
  const home = join(root, 'home');
  const empty = join(root, 'empty');
  const socket = join(root, 'run', 'control.sock');
  const bin = (name: string) => join(prefix, 'bin', name);
  const env = (): NodeJS.ProcessEnv => {
    return { PATH: process.env.PATH, HOME: home, MCPD_SOCKET: socket, MCPD_TEST_TAG: tag };
  };
  const tag = randomUUID();
  let core: ChildProcess | undefined;

  beforeAll(async () => {
    mkdirSync(home);
    mkdirSync(empty);
    // The README's quick start, literally, in a fresh clone of the commit under test (HEAD: uncommitted
    // edits are not in it): no dist/, no node_modules, so `npm pack` must build through prepack with the
    // compiler `npm ci` brought.
    const clone = join(root, 'clone');
    const head = (await run('git', ['-C', REPO, 'rev-parse', 'HEAD'])).stdout.trim();
    await run('git', ['clone', '--quiet', '--no-checkout', REPO, clone], { timeout: INSTALL_TIMEOUT_MS });
    await run('git', ['-C', clone, 'checkout', '--quiet', '--detach', head]);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    // --prefer-offline: the dependencies come from npm's cache when it has them (CI ran npm ci).
    const quiet = ['--prefer-offline', '--no-audit', '--no-fund'];
    await run('npm', ['ci', ...quiet], { cwd: clone, timeout: INSTALL_TIMEOUT_MS });
    await run('npm', ['pack', '--silent'], { cwd: clone, timeout: INSTALL_TIMEOUT_MS });
    // The npm build leaves the stamp make's build checks: `make run` after it compiles nothing.
    expect(
      await run('make', ['-q', 'dist/.build-stamp'], { cwd: clone }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? 1,
      ),
    ).toBe(0);
    const tgz = readdirSync(clone).find((n) => /^mcpd-.*\.tgz$/.test(n));
    if (!tgz) throw new Error('npm pack wrote no mcpd-*.tgz');
    await run('npm', ['install', '-g', `./${tgz}`, '--prefix', prefix, ...quiet], { cwd: clone, timeout: INSTALL_TIMEOUT_MS });
    // The clone's node_modules is large: gone now, so the clean-up after the tests stays short.
    await rm(clone, { recursive: true, force: true });
  }, 4 * INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (core && core.exitCode === null && core.signalCode === null) {
      core.kill('SIGTERM');
      await new Promise((r) => core?.once('exit', r));
    }
    killTagged(tag);
    rmSync(root, { recursive: true, force: true });
  });

  it('ships the build and production dependencies only', () => {
    const pkgDir = join(prefix, 'lib', 'node_modules', 'mcpd');
    expect(existsSync(join(pkgDir, 'dist', 'cmd', 'mcpd', 'main.js'))).toBe(true);
    expect(existsSync(join(pkgDir, 'internal'))).toBe(false);
    for (const dev of ['typescript', 'vitest', 'prettier', 'ts-proto']) expect(existsSync(join(pkgDir, 'node_modules', dev))).toBe(false);
  });

  it('runs from an empty directory: init, the core on ~/.config/mcpd, a real server, completion', async () => {
    const version = await run(bin('mcpd'), ['--version'], { cwd: empty, env: env() });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);

    const init = await run(bin('mcpd'), ['init'], { cwd: empty, env: env() });
    const store = join(home, '.config', 'mcpd');
    expect(init.stdout).toContain(`created a profile store in ${store}`);
    expect(readFileSync(join(store, 'profiles', 'default.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/\.schema\/profile\.schema\.json/,
    );
    expect(JSON.parse(readFileSync(join(store, '.schema', 'profile.schema.json'), 'utf8')).title).toMatch(/mcpd profile/);
    expect(readdirSync(empty)).toEqual([]);

    // A real server from the installed package's own dependencies.
    const everything = join(
      prefix,
      'lib',
      'node_modules',
      'mcpd',
      'node_modules',
      '@modelcontextprotocol',
      'server-everything',
      'dist',
      'index.js',
    );
    writeFileSync(
      join(store, 'profiles', 'default.yaml'),
      `servers:\n  - name: everything\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(everything)}, stdio]\n`,
    );
    writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: ""\n');

    core = spawn(bin('mcpd'), [], { cwd: empty, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    core.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(
      'the installed core to answer',
      async () => {
        if (core?.exitCode !== null) throw new Error(`core exited: ${log}`);
        return run(bin('mcpdctl'), ['status'], { cwd: empty, env: env() }).then(
          (r) => r.stdout.includes(`config ${store}`),
          () => false,
        );
      },
      60_000,
    );
    const r = await run(bin('mcpdctl'), ['call', 'anyone', 'everything__echo', '--args', '{"message":"from the installed package"}'], {
      cwd: empty,
      env: env(),
    });
    expect(r.stdout).toContain('from the installed package');
    expect(readdirSync(empty)).toEqual([]);
    // The installed core's audit log holds the call, chained and anchored.
    let verified = '';
    await waitFor(
      "the call in the installed core's audit log",
      async () => {
        const v = await run(bin('mcpdctl'), ['audit', 'verify'], { cwd: empty, env: env() }).catch((e: unknown) => ({ stdout: String(e) }));
        verified = v.stdout;
        return /^ok: 1 entr(y|ies) in 1 file/m.test(v.stdout);
      },
      60_000,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}; mcpdctl audit verify said: ${verified}; the core's log: ${log}`);
    });

    const completion = await run(bin('mcpdctl'), ['completion', 'bash'], { cwd: empty, env: env() });
    const script = join(root, 'mcpdctl.bash');
    writeFileSync(script, completion.stdout);
    const probe = `source ${JSON.stringify(script)}; COMP_WORDS=(mcpdctl con); COMP_CWORD=1; _mcpdctl; echo "\${COMPREPLY[*]}"; COMP_WORDS=(mcpdctl connect cl); COMP_CWORD=2; _mcpdctl; echo "\${COMPREPLY[*]}"`;
    const words = await run('bash', ['-c', probe], { env: env() });
    expect(words.stdout.split('\n').slice(0, 2)).toEqual(['connect', 'claude-desktop claude-code']);

    core.kill('SIGTERM');
    await new Promise((res) => core?.once('exit', res));
    await waitFor('the core and its servers to exit', () => pidsWithTag(tag).filter((p) => p !== process.pid).length === 0);
  });
  it('mcpd/smcp: a TypeScript program importing it type-checks against the installed .d.ts (node16 and bundler) and runs', async () => {
    const app = join(root, 'consumer');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    symlinkSync(join(prefix, 'lib', 'node_modules', 'mcpd'), join(app, 'node_modules', 'mcpd'), 'dir');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(
      join(app, 'main.ts'),
      [
        "import { SmcpAgent, SmcpError, SMCP_CODES, type SessionInfo } from 'mcpd/smcp';",
        "const agent = await SmcpAgent.connect({ url: process.argv[2], name: 'typed', apiKey: process.env.SMCP_API_KEY, office: 'typed-office' });",
        'const sessions: SessionInfo[] = await agent.listRoom();',
        'let code: number | undefined;',
        'try {',
        "  await agent.getTools('nobody');",
        '} catch (e) {',
        '  if (e instanceof SmcpError) code = e.code;',
        '}',
        'process.stdout.write(`${JSON.stringify({ room: sessions.map((x) => `${x.role}:${x.name}`), code, notFound: SMCP_CODES.notFound })}\n`);',
        'agent.close();',
        '',
      ].join('\n'),
    );
    // Wrong on purpose: only real declarations (not `any`) reject it.
    writeFileSync(
      join(app, 'wrong.ts'),
      "import { SmcpAgent } from 'mcpd/smcp';\nexport const n: number = (null as unknown as SmcpAgent).name;\n",
    );
    const tsconfig = (files: string[]) =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'node16',
          moduleResolution: 'node16',
          strict: true,
          outDir: 'out',
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules', '@types')],
        },
        files,
      });
    writeFileSync(join(app, 'tsconfig.json'), tsconfig(['main.ts']));
    writeFileSync(join(app, 'tsconfig.wrong.json'), tsconfig(['wrong.ts']));
    const tsc = (args: string[]) => run(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], { cwd: app });
    await tsc(['-p', 'tsconfig.json']);
    await tsc(['-p', 'tsconfig.json', '--noEmit', '--module', 'esnext', '--moduleResolution', 'bundler']);
    const wrong = await tsc(['-p', 'tsconfig.wrong.json', '--noEmit']).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(wrong).toMatch(/wrong\.ts\(2,14\): error TS2322: Type 'string' is not assignable to type 'number'/);

    // And it runs: the compiled program against the installed mcpd-smcp.
    const key = randomUUID();
    const smcp = spawn(bin('mcpd-smcp'), ['--listen', '127.0.0.1:0'], {
      cwd: empty,
      env: { ...env(), SMCP_API_KEY: key },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [line] = (await once(createInterface({ input: smcp.stdout! }), 'line')) as [string];
      const { url } = JSON.parse(line) as { url: string };
      const out = await run(process.execPath, [join(app, 'out', 'main.js'), url], { cwd: app, env: { ...env(), SMCP_API_KEY: key } });
      expect(JSON.parse(out.stdout)).toEqual({ room: ['agent:typed'], code: 404, notFound: 404 });
    } finally {
      smcp.kill('SIGTERM');
      if (smcp.exitCode === null) await once(smcp, 'exit');
    }
    expect(smcp.exitCode).toBe(0);
  });
});

import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultSocketPath } from '../../internal/contract/session/socket-path.js';
import { TestWorld } from '../support/core-process.js';
import { MCPD, MCPDCTL, MCPDMCP } from '../support/paths.js';
import { cmdline } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

/**
 * The environment a client like Codex gives the gateway: no XDG_RUNTIME_DIR, no MCPD_SOCKET, its own
 * HOME. Only the store is named (`--config`, as `mcpdctl connect` writes it).
 */
function strippedEnv(world: TestWorld): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MCPD_TEST_TAG: world.tag, HOME: world.dir };
  for (const k of ['XDG_RUNTIME_DIR', 'MCPD_SOCKET', 'MCPD_CONFIG', 'MCPD_STATE_DIR', 'TMPDIR']) delete env[k];
  return env;
}

const cores = (world: TestWorld) => world.pids().filter((p) => cmdline(p).includes(MCPD));

describe('every client finds the same core, whatever environment it passes', () => {
  let world: TestWorld | undefined;
  afterEach(async () => world?.cleanup());

  it('the default socket depends on the user only, not on XDG_RUNTIME_DIR or TMPDIR', () => {
    const plain = defaultSocketPath({});
    expect(defaultSocketPath({ XDG_RUNTIME_DIR: '/somewhere/else', TMPDIR: '/var/tmp/x' })).toBe(plain);
    expect(plain).toMatch(new RegExp(`/mcpd(-${process.getuid?.()})?/control\\.sock$`));
  });

  it('a gateway without the socket in its environment reaches the store’s core; a second core is refused naming the first', async () => {
    const w = new TestWorld({ 'profiles/default.yaml': profile(echoServer('echo', { idleSeconds: 300 })) });
    world = w;
    // The core runs on a socket only its store knows (runtime.yaml), as a user's shell with its own
    // XDG_RUNTIME_DIR made it; the client knows only the store.
    const socket = join(w.dir, 'private', 'core.sock');
    w.write('runtime.yaml', `metricsAddress: ""\nsocket: ${socket}\n`);
    const first = spawn(process.execPath, [MCPD, '--config', w.configDir], {
      env: strippedEnv(w),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    w.cores.push(first);
    first.stderr.setEncoding('utf8');
    first.stderr.on('data', (d: string) => w.coreLog.push(d));
    await w.waitForLogLine('the core to start', /"core started"/);
    const corePid = first.pid as number;

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCPDMCP, 'codex', '--config', w.configDir],
      env: strippedEnv(w) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'codex-like', version: '1.0.0' });
    await client.connect(transport);
    w.clients.push(client);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('echo__echo');
    // Its first turn had the tools, and no second core was started for the same store.
    expect(cores(w)).toEqual([corePid]);

    // mcpdctl, too, finds the core from the store alone.
    const st = await run(process.execPath, [MCPDCTL, 'status', '--json', '--config', w.configDir], { env: strippedEnv(w) });
    expect(JSON.parse(st.stdout)).toMatchObject({ info: { pid: corePid, socket } });

    // A second core on the same store, on another socket, is refused and names the first.
    const second = await run(process.execPath, [MCPD, '--config', w.configDir, '--socket', join(w.dir, 'other.sock')], {
      env: strippedEnv(w),
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another mcpd (pid ${corePid}) already serves the store ${w.configDir} on ${socket}`);
    expect(cores(w)).toEqual([corePid]);

    // `mcpdctl connect` names only the store: the gateway finds the socket from it (runtime.yaml, the record),
    // so the entry is the same whether or not a core runs.
    const cfg = join(w.dir, '.cursor', 'mcp.json');
    await run(process.execPath, [MCPDCTL, 'connect', 'cursor', '--config', w.configDir], { env: strippedEnv(w), cwd: w.dir });
    const written = JSON.parse(readFileSync(cfg, 'utf8')) as { mcpServers: { mcpd: { args: string[] } } };
    expect(written.mcpServers.mcpd.args).toEqual([expect.stringMatching(/mcpdmcp/), 'cursor', '--config', w.configDir]);
  });
});

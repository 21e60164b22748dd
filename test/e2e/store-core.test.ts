import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TestWorld } from '../support/core-process.js';
import { MCPD, MCPDCTL, MCPDMCP } from '../support/paths.js';
import { cmdline } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { storeDefaultSocket } from '../../internal/launch/store-socket.js';

const run = promisify(execFile);

/** A client's environment with only the store named: no MCPD_SOCKET, no MCPD_CONFIG, no XDG_RUNTIME_DIR. */
function strippedEnv(world: TestWorld): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MCPD_TEST_TAG: world.tag, HOME: world.dir };
  for (const k of ['XDG_RUNTIME_DIR', 'MCPD_SOCKET', 'MCPD_CONFIG', 'MCPD_STATE_DIR', 'TMPDIR', 'XDG_CONFIG_HOME']) delete env[k];
  return env;
}

/** A second store beside the world's own, with one echo server named `name`. */
function store(world: TestWorld, dir: string, name: string, runtime = 'metricsAddress: ""\nlistingBudgetSeconds: 60\n'): string {
  const at = join(world.dir, dir);
  mkdirSync(join(at, 'profiles'), { recursive: true });
  writeFileSync(join(at, 'profiles', 'default.yaml'), profile(echoServer(name, { idleSeconds: 300 })));
  writeFileSync(join(at, 'runtime.yaml'), runtime);
  made.push(storeDefaultSocket(at, {}));
  return at;
}

async function gatewayTools(world: TestWorld, args: string[]): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCPDMCP, ...args],
    env: strippedEnv(world) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'store-test', version: '1.0.0' });
  await client.connect(transport);
  world.clients.push(client);
  return (await client.listTools()).tools.map((t) => t.name);
}

async function status(world: TestWorld, configDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [MCPDCTL, 'status', '--json', '--config', configDir], { env: strippedEnv(world) }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

const coresOf = (world: TestWorld, configDir: string) =>
  world.pids().filter((p) => cmdline(p).includes(MCPD) && cmdline(p).includes(configDir));

/** The default sockets of the stores the test made: they live in the per-user directory, so their leftovers are removed. */
const made: string[] = [];

describe('one store, one core, the right one', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.cleanup();
    // What the stores' cores leave beside their sockets in the per-user directory (the start key, the log).
    for (const sock of made.splice(0)) {
      for (const f of [`${sock}.start-key`, sock.replace(/\.sock$/, '.log')]) rmSync(f, { force: true });
    }
  });

  it('a gateway with --config A never serves store B’s core: it starts A’s; mcpdctl --config A reaches A’s or none', async () => {
    const w = new TestWorld({});
    world = w;
    const a = store(w, 'a', 'alpha');
    const b = store(w, 'b', 'beta');
    const c = store(w, 'c', 'gamma');
    // B's core starts first, with no socket named anywhere (as `make run` on a checkout does).
    const coreB = spawn(process.execPath, [MCPD, '--config', b], { env: strippedEnv(w), stdio: ['ignore', 'ignore', 'pipe'] });
    w.cores.push(coreB);
    coreB.stderr.setEncoding('utf8');
    coreB.stderr.on('data', (d: string) => w.coreLog.push(d));
    await w.waitForLogLine('store B’s core to start', /"core started"/);

    const tools = await gatewayTools(w, ['codex', '--config', a]);
    expect(tools).toContain('alpha__echo');
    expect(tools).not.toContain('beta__echo');
    const [coreA] = coresOf(w, a);
    expect(coreA).toBeDefined();

    const sa = await status(w, a);
    expect(JSON.parse(sa.stdout)).toMatchObject({ info: { pid: coreA } });
    const sb = await status(w, b);
    expect(JSON.parse(sb.stdout)).toMatchObject({ info: { pid: coreB.pid } });
    // A store without a core: mcpdctl says so rather than showing another store's core.
    const sc = await status(w, c);
    expect(sc.code).toBe(1);
    expect(sc.stderr).toContain('no mcpd core at');
    expect(coresOf(w, c)).toEqual([]);
  });

  it('a gateway that starts the core honours runtime.yaml `socket:`; connect writes the same entry with or without a core', async () => {
    const w = new TestWorld({});
    world = w;
    const s = store(w, 's', 'sigma', 'metricsAddress: ""\nlistingBudgetSeconds: 60\nsocket: run/core.sock\n');
    const connect = async () => {
      await run(process.execPath, [MCPDCTL, 'connect', 'cursor', '--config', s], { env: strippedEnv(w), cwd: w.dir });
      return (JSON.parse(readFileSync(join(w.dir, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: { mcpd: { args: string[] } } })
        .mcpServers.mcpd.args;
    };
    const before = await connect();
    expect(before).toEqual([expect.stringMatching(/mcpdmcp/), 'cursor', '--config', s]);

    expect(await gatewayTools(w, ['cursor', '--config', s])).toContain('sigma__echo');
    const st = await status(w, s);
    expect(JSON.parse(st.stdout)).toMatchObject({ info: { socket: join(s, 'run', 'core.sock') } });
    expect(coresOf(w, s)).toHaveLength(1);

    expect(await connect()).toEqual(before);
  });
});

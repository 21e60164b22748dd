import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPD, MCPDCTL } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

const UNSET = 'MCPD_TEST_NEVER_SET_TOKEN';

async function run(world: TestWorld, args: string[]): Promise<{ code: number; out: string }> {
  const env = world.env();
  delete env[UNSET];
  return promisify(execFile)(process.execPath, args, { env }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

/** A store whose `bad` server needs a variable nobody set and `asks` an input nobody gave; `off` is disabled. */
const STORE = {
  'profiles/default.yaml': [
    'inputs:',
    '  - id: apikey',
    '    type: promptString',
    profile(
      echoServer('good', { idleSeconds: 300 }),
      echoServer('bad', { idleSeconds: 300 }, { TOKEN: `\${${UNSET}}` }),
      echoServer('asks', { idleSeconds: 300 }, { KEY: '${input:apikey}' }),
      echoServer('off', { idleSeconds: 300, disabled: 'true' }, { TOKEN: '${MCPD_TEST_ALSO_NEVER_SET}' }),
    ),
  ].join('\n'),
};

describe('one bad server does not take the whole store down', () => {
  let world: TestWorld | undefined;
  afterEach(async () => world?.cleanup());

  it('the store loads without it; status, tools, the call and validate say why', async () => {
    const w = new TestWorld(STORE);
    world = w;
    await w.startCore();
    const client = await w.gateway('user');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('good__echo');
    expect(names.some((n) => n.startsWith('bad__') || n.startsWith('asks__'))).toBe(false);

    const call = await client.callTool({ name: 'bad__echo', arguments: {} }).then(
      (r) => JSON.stringify(r),
      (e: Error) => e.message,
    );
    expect(call).toContain(`environment variable "${UNSET}" is not set`);

    const tools = await run(w, [MCPDCTL, 'tools', 'user', '--socket', w.socket]);
    expect(tools.out).toMatch(/server bad .*left out: environment variable "MCPD_TEST_NEVER_SET_TOKEN" is not set/);
    expect(tools.out).toMatch(/server asks .*left out: input "apikey" has no value/);

    const status = await run(w, [MCPDCTL, 'status', '--socket', w.socket]);
    expect(status.out).toMatch(
      /profiles\/default\.yaml:\d+.*environment variable "MCPD_TEST_NEVER_SET_TOKEN" is not set.*the server "bad" is left out/,
    );
    // A disabled server is not resolved at all: its unset variable is no problem.
    expect(status.out).not.toContain('MCPD_TEST_ALSO_NEVER_SET');

    // A value not to be had here is a warning: CI checking an imported store passes; --strict fails on it.
    const validate = await run(w, [MCPD, 'validate', '--config', w.configDir]);
    expect(validate.code).toBe(0);
    expect(validate.out).toContain(`warning: `);
    expect(validate.out).toContain(`environment variable "${UNSET}" is not set`);
    expect((await run(w, [MCPD, 'validate', '--strict', '--config', w.configDir])).code).toBe(1);
    expect(validate.out).toContain('input "apikey" has no value');
    expect(validate.out).not.toContain('MCPD_TEST_ALSO_NEVER_SET');
  });

  it('a gateway that cannot start a core says why at once, with the core log', async () => {
    const w = new TestWorld({ 'profiles/default.yaml': 'servers:\n  - name: first\n    transport: carrier-pigeon\n' });
    world = w;
    // No core runs; the gateway starts one, which refuses the store. The request must not wait 60 s for it.
    const client = await w.gateway('user', ['--core-wait-ms', '60000']);
    const err = await client.listTools().then(
      () => 'listed',
      (e: Error) => e.message,
    );
    expect(err).toContain('the core it started exited: mcpd: configuration in');
    expect(err).toContain('carrier-pigeon');
    expect(err).toContain(`its log: ${join(w.dir, 'run', 'mcpd.log')}`);
  }, 50_000);
});

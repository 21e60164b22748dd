import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestWorld } from '../support/core-process.js';
import { startHttpGatewayProc } from '../support/http-gateway.js';
import { MCPD, MCPDCTL } from '../support/paths.js';
import { cmdline, waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

describe('mcpdctl stop stops', () => {
  const world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('echo', { idleSeconds: 300 })) });
  afterAll(async () => world.cleanup());
  const cores = () => world.pids().filter((p) => cmdline(p).includes(MCPD));

  it('an HTTP gateway does not start the core again until a client needs it; stop --all stops the gateway too', async () => {
    await world.startCore();
    // Autostart on, as a user runs it.
    const gw = await startHttpGatewayProc(
      'ops',
      ['--socket', world.socket, '--config', world.configDir, '--http', '127.0.0.1:0'],
      world.env(),
    );
    const client = new Client({ name: 'http-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    world.clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo__echo');

    const stopped = await run(process.execPath, [MCPDCTL, 'stop', '--socket', world.socket], { env: world.env() });
    expect(stopped.stdout).toMatch(/core pid \d+ stopped/);
    // The gateway noticed, tried to reconnect, and decided not to start a core by itself.
    await waitFor('the gateway to leave the core stopped', () => gw.stderr().includes('not starting one until a client needs it'));
    expect(cores()).toEqual([]);

    // A client that needs the core again gets it.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo__echo');
    expect(cores()).toHaveLength(1);

    // --all: the gateway stops too.
    const gone = new Promise((r) => gw.proc.once('exit', r));
    const all = await run(process.execPath, [MCPDCTL, 'stop', '--all', '--socket', world.socket], { env: world.env() });
    expect(all.stdout).toContain(`stopped gateway pid ${gw.proc.pid}`);
    await gone;
    await waitFor('the core to exit', () => cores().length === 0);
  });
});

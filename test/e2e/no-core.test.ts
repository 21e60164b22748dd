import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestWorld } from '../support/core-process.js';
import { startHttpGatewayProc, stopProc } from '../support/http-gateway.js';
import { MCPD } from '../support/paths.js';
import { cmdline } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

/**
 * A gateway that cannot start a core and has never reached one answers initialize and fails every
 * other request at once. The client's own request timeout (5 s) is far below the gateway's core wait
 * (60 s): a gateway that waited would fail these with the client's timeout, not the gateway's error.
 */
const CLIENT_TIMEOUT = { timeout: 5000 };
const NO_CORE = /no mcpd core reachable at \S+control\.sock; start one with `mcpd --config DIR --socket \S+control\.sock`/;

describe('a gateway with no core reachable and none to start', () => {
  let world: TestWorld;
  beforeAll(() => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
  });
  afterAll(async () => world.cleanup());

  it('stdio: initialize answers, every request fails at once with the clear error', async () => {
    const client = await world.gateway('lonely', ['--no-autostart', '--core-wait-ms', '60000']);
    expect(client.getServerVersion()?.name).toBe('mcpd');
    await expect(client.listTools(undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
    await expect(client.callTool({ name: 'fx__echo', arguments: {} }, undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
    await expect(client.listResources(undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
    expect(world.pids().some((p) => cmdline(p).includes(MCPD))).toBe(false);
  });

  it('--http: the same, so a conformance run against it does not crawl', async () => {
    const gw = await startHttpGatewayProc('lonely', ['--no-autostart', '--core-wait-ms', '60000', '--http', '127.0.0.1:0'], world.env());
    const client = new Client({ name: 'no-core', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
      await expect(client.listTools(undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
      await expect(client.listPrompts(undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
    } finally {
      await client.close();
      await stopProc(gw.proc);
    }
  });

  it('once a core is up, the same gateway serves; after that it waits for the core to come back', async () => {
    const client = await world.gateway('patient', ['--no-autostart', '--core-wait-ms', '60000']);
    await expect(client.listTools(undefined, CLIENT_TIMEOUT)).rejects.toThrow(NO_CORE);
    const core = await world.startCore();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx__echo');
    // The core goes away: a request now waits for it (no fast failure) and succeeds when it is back.
    const gone = new Promise((r) => core.once('exit', r));
    core.kill('SIGTERM');
    await gone;
    const listing = client.listTools(undefined, { timeout: 60_000 });
    await world.startCore();
    expect((await listing).tools.map((t) => t.name)).toContain('fx__echo');
  });
});

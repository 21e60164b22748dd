import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { startFixtureServer, type FixtureServerProc } from '../support/fixture-server-proc.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { TestAgent } from '../support/smcp-agent-peer.js';
import { computerJoined } from '../support/smcp-core-computer.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

const KEY = 'smcp-test-key-0123456789';
// Query values: two under names that say "secret", one under a plain name (masked to be safe).
const QUERY_TOKEN = 'qtoken-7712';
const API_KEY = 'apikey-5530';
const ACCESS_TOKEN = 'access-9921';
const PLAIN_VALUE = 'plainvalue-4408';
// The Basic credential, and the query value of the server behind it.
const PASSWORD = 'basicpw-3317';
const BASIC_QUERY = 'basicq-6604';
const BASIC = Buffer.from(`alice:${PASSWORD}`).toString('base64');
const SECRETS = [QUERY_TOKEN, API_KEY, ACCESS_TOKEN, PLAIN_VALUE, PASSWORD, BASIC_QUERY, BASIC];
const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

type Result = { content: { type: string; text: string }[]; isError?: boolean };

/**
 * Credentials in server URLs against a real core, a real mcpd-smcp and a real HTTP MCP server behind
 * Basic authentication (test/fixtures/servers/basic-auth.mjs), which refuses any request without the
 * right header.
 */
describe('credentials in a server URL', () => {
  let world: TestWorld;
  let basic: FixtureServerProc<{ url: string }>;
  let smcp: SmcpProc;
  let agent: TestAgent;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers:\n  dev: default\n' });
    basic = await startFixtureServer(
      join(FIXTURES, 'servers/basic-auth.mjs'),
      world.env({ BASIC_FIXTURE_USER: 'alice', BASIC_FIXTURE_PASSWORD: PASSWORD }),
    );
    const port = new URL(basic.info.url).port;
    world.write(
      'profiles/default.yaml',
      [
        'servers:',
        // Nothing listens on port 9: starting it fails, and the failure is shown in every output.
        '  - name: leaky',
        `    url: "http://127.0.0.1:9/mcp?token=${QUERY_TOKEN}&api_key=${API_KEY}&access_token=${ACCESS_TOKEN}&region=${PLAIN_VALUE}"`,
        '  - name: basic',
        `    url: "http://alice:${PASSWORD}@127.0.0.1:${port}/mcp?token=${BASIC_QUERY}"`,
        // The config's own Authorization wins over the URL's (wrong) userinfo.
        '  - name: own',
        `    url: "http://mallory:wrong-password@127.0.0.1:${port}/mcp"`,
        `    headers: { Authorization: "Basic ${BASIC}" }`,
        '',
      ].join('\n'),
    );
    smcp = await startSmcpProc([], world.env({ SMCP_API_KEY: KEY }));
    world.write(
      'runtime.yaml',
      [
        'metricsAddress: ""',
        'smcp:',
        `  url: ${smcp.url}`,
        '  apiKey: ${SMCP_API_KEY}',
        '  office: office-1',
        '  computers:',
        '    - { name: laptop, caller: dev }',
        '',
      ].join('\n'),
    );
    await world.startCore({ SMCP_API_KEY: KEY });
    await computerJoined(world.control(), 'laptop');
    agent = await TestAgent.join(smcp.url, KEY, 'office-1');
  });
  afterAll(async () => {
    agent?.close();
    await smcp?.stop();
    await basic?.stop();
    await world?.cleanup();
  });

  it('userinfo is sent as an Authorization: Basic header, unless the config sets Authorization itself', async () => {
    const client = await world.gateway('dev');
    const viaUrl = (await client.callTool({ name: 'basic__whoami', arguments: {} })) as Result;
    expect(viaUrl.isError ?? false).toBe(false);
    expect(viaUrl.content[0]?.text).toBe('user=alice');
    const viaHeader = (await client.callTool({ name: 'own__whoami', arguments: {} })) as Result;
    expect(viaHeader.content[0]?.text).toBe('user=alice');
    expect(basic.stderr()).not.toContain('refused');
    // Neither the password nor the header it became is logged.
    expect(leaks(world.coreLog.join(''))).toEqual([]);
  });

  it('query values and userinfo are masked in status, the core log, client errors, GetRuntimeStatus and client:get_config', async () => {
    const client = await world.gateway('dev');
    const errors: string[] = [];
    await client.callTool({ name: 'leaky__anything', arguments: {} }).then(
      (r) => errors.push(JSON.stringify(r)),
      (e: unknown) => errors.push(String(e)),
    );
    const status = (
      await promisify(execFile)(process.execPath, [MCPDCTL, '--socket', world.socket, '--json', 'status'], { env: world.env() })
    ).stdout;
    const control = world.control();
    const runtime = JSON.stringify(
      await callUnary<pb.GetRuntimeStatusRequest, pb.RuntimeStatus>((q, cb) => control.getRuntimeStatus(q, cb), {}),
    );
    const config = JSON.stringify(await agent.request('client:get_config', 'laptop'));
    await world.waitForLogLine('a core log line about leaky', /leaky/);
    const coreLog = world.coreLog.join('');
    // Each output does show the server and its URL, with the values masked.
    expect(errors.join('\n')).toMatch(/leaky/);
    expect(status).toContain('token=***&api_key=***&access_token=***&region=***');
    expect(config).toContain('token=***&api_key=***&access_token=***&region=***');
    expect(config).toMatch(/\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/mcp\?token=\*\*\*"/);
    expect(runtime).toMatch(/leaky/);
    expect(coreLog).toMatch(/leaky/);
    expect({
      status: leaks(status),
      coreLog: leaks(coreLog),
      errors: leaks(errors.join('\n')),
      runtimeStatus: leaks(runtime),
      getConfig: leaks(config),
    }).toEqual({ status: [], coreLog: [], errors: [], runtimeStatus: [], getConfig: [] });
  });
});

import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmcpAgent } from 'mcpd/smcp';
import { createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, EVERYTHING, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { computerJoined } from '../support/smcp-core-computer.js';
import { startSmcpNodes, type SmcpNodes } from '../support/smcp-redis-nodes.js';
import { must } from '../../internal/shared/must.js';

const KEY = 'agent-core-key-0123456789';
const node = JSON.stringify(process.execPath);
const PROFILE = [
  'servers:',
  '  - name: everything',
  `    cmd: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]`,
  '    env:',
  '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
  '  - name: fx',
  `    cmd: [${node}, ${JSON.stringify(ECHO_SERVER)}]`,
  '    env:',
  '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
  '',
].join('\n');

/**
 * The whole chain with nothing stubbed: SmcpAgent (and mcpdctl smcp) on node 1 → Redis → node 2 → the real
 * core as Computer → real MCP servers.
 */
describe('SmcpAgent → two mcpd-smcp nodes on Redis → the real core as Computer', () => {
  let smcp: SmcpNodes;
  let world: TestWorld;
  let agent: SmcpAgent;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers: { claude-desktop: default }\n', 'profiles/default.yaml': PROFILE });
    smcp = await startSmcpNodes(2, world.env({ SMCP_API_KEY: KEY }));
    const node1 = must(smcp.nodes[0], 'node 1');
    const node2 = must(smcp.nodes[1], 'node 2');
    world.write(
      'runtime.yaml',
      `metricsAddress: ""\nsmcp:\n  url: ${node2.url}\n  apiKey: \${SMCP_API_KEY}\n  office: office-1\n  computers:\n    - { name: laptop, caller: claude-desktop }\n`,
    );
    await world.startCore({ SMCP_API_KEY: KEY });
    const control = createControlClient(world.socket);
    try {
      await computerJoined(control, 'laptop');
    } finally {
      control.close();
    }
    agent = await SmcpAgent.connect({ url: node1.url, name: 'agent-1', apiKey: KEY, office: 'office-1' });
  });
  afterAll(async () => {
    agent?.close();
    // The nodes carry the world's tag: stop them before its clean-up proves nothing is left.
    if (smcp) for (const r of await smcp.stop()) expect(r.code).toBe(0);
    await world?.cleanup();
  });

  it('lists the core in the room and gets its tools across nodes', async () => {
    expect((await agent.listRoom()).map((s) => `${s.role}:${s.name}`).sort()).toEqual(['agent:agent-1', 'computer:laptop']);
    const names = (await agent.getTools('laptop')).map((t) => t.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('fx__hang');
  });

  it('calls a real tool with a 1 KB payload', async () => {
    const message = 'k'.repeat(1024);
    const r = await agent.callTool('laptop', 'everything__echo', { message });
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([{ type: 'text', text: `Echo: ${message}` }]);
  });

  const seen = (marker: string): number => world.coreLog.join('').split(marker).length - 1;

  it('a deadline ends the downstream call: the core answers 4004 and the server sees notifications/cancelled', async () => {
    const before = seen('fixture: cancelled hang');
    const r = await agent.callTool('laptop', 'fx__hang', {}, { timeoutSeconds: 1 });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 4004 });
    await waitFor('the server saw notifications/cancelled', () => seen('fixture: cancelled hang') > before);
  });

  it('cancel() mid-call reaches the downstream server across nodes; the call returns a2c_cancelled', async () => {
    const [hanging, cancelled] = [seen('fixture: hanging'), seen('fixture: cancelled hang')];
    const pending = agent.callTool('laptop', 'fx__hang', {}, { timeoutSeconds: 60, reqId: 'hang-cancel-1' });
    // The server itself says the call arrived (the fixture logs it), so the cancel cannot overtake it.
    await waitFor('the hang call at the server', () => seen('fixture: hanging') > hanging);
    agent.cancel('hang-cancel-1');
    expect(await pending).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
    await waitFor('the server saw notifications/cancelled', () => seen('fixture: cancelled hang') > cancelled);
  });

  it('serves mcpdctl smcp against the real core', async () => {
    // One agent per office: the library's agent leaves the seat to the CLI.
    agent.close();
    const out = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          MCPDCTL,
          'smcp',
          must(smcp.nodes[0], 'smcp.nodes[0]').url,
          '--office',
          'office-1',
          '--name',
          'cli',
          'call',
          'laptop',
          'everything__echo',
          '--args',
          '{"message":"hi"}',
        ],
        { env: { ...process.env, SMCP_API_KEY: KEY } },
        (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout }),
      ),
    );
    expect(out).toEqual({ code: 0, stdout: 'Echo: hi\n' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';

describe('editing the profile store while running', () => {
  let world: TestWorld;
  let client: Client;
  let changes = 0;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('first', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('editor');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
  });
  afterAll(async () => world.cleanup());

  it('announces list_changed and shows the new tools when a server is added', async () => {
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('first__echo');
    expect(before.some((n) => n.startsWith('second__'))).toBe(false);
    const pidOf = async () => JSON.stringify((await client.callTool({ name: 'first__pid', arguments: {} })).content);
    const firstPid = await pidOf();
    const seen = changes;
    world.write(
      'profiles/default.yaml',
      profile(echoServer('first', { idleSeconds: 300 }), echoServer('second', { idleSeconds: 300, maxConcurrent: 2 })),
    );
    await waitFor('notifications/tools/list_changed', () => changes > seen, 20_000);
    const after = (await client.listTools()).tools.map((t) => t.name);
    expect(after).toContain('second__echo');
    expect(after).toContain('first__echo');
    // Only the difference was applied: the unchanged server kept its process.
    expect(await pidOf()).toBe(firstPid);
  });

  it('keeps the running configuration on a broken edit and reports why', async () => {
    const before = (await client.listTools()).tools.map((t) => t.name);
    world.write('profiles/default.yaml', 'servers:\n  - name: first\n    transport: carrier-pigeon\n');
    const ctl = createControlClient(world.socket);
    try {
      const calls = new ControlCalls(ctl);
      let issues: string[] = [];
      await waitFor('the rejected edit to be reported', async () => {
        issues = (await calls.status()).configIssues;
        return issues.length > 0;
      });
      expect(issues.join('\n')).toMatch(/default\.yaml:3.*transport.*carrier-pigeon/);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
      const r = await client.callTool({ name: 'first__echo', arguments: { still: 'works' } });
      expect(JSON.stringify(r)).toContain('works');
    } finally {
      ctl.close();
    }
  });
});

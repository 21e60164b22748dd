import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { ControlCalls, collectStream } from '../../internal/contract/grpc/control-client.js';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';

describe('paged listing across a change', () => {
  let world: TestWorld;
  let client: ControlPlaneClient;
  let calls: ControlCalls;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 }, { ECHO_TOOL_COUNT: '35', ECHO_PAGE_SIZE: '10' })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = world.control();
    calls = world.calls();
  });
  afterAll(async () => world.cleanup());

  it('follows downstream pages, and a cursor keeps serving the snapshot it came from', async () => {
    const first = await calls.listTools({ caller: 'pager', cursor: '', pageSize: 10 });
    expect(first.tools).toHaveLength(10);
    expect(first.nextCursor).not.toBe('');
    // Change the list between pages: the fixture adds a tool and sends list_changed.
    await collectStream(
      client.callTool({ caller: 'pager', name: 'fx__churn', argumentsJson: Buffer.from('{}'), routingKey: '', timeoutMs: 0 }),
      () => {},
    );
    await waitFor(
      'the new snapshot',
      async () => (await calls.listTools({ caller: 'pager', cursor: '', pageSize: 10 })).etag !== first.etag,
    );

    const names = first.tools.map((t) => t.name);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await calls.listTools({ caller: 'pager', cursor, pageSize: 10 });
      expect(page.etag).toBe(first.etag);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    }
    // 10 built-in fixture tools + 35 generated, each exactly once, none from after the change.
    expect(names).toHaveLength(45);
    expect(new Set(names).size).toBe(45);
    expect(names.some((n) => n.startsWith('fx__extra'))).toBe(false);

    const fresh = await calls.listTools({ caller: 'pager', cursor: '', pageSize: 100 });
    expect(fresh.tools).toHaveLength(46);
  });

  it('rejects a malformed cursor with a clear error', async () => {
    await expect(calls.listTools({ caller: 'pager', cursor: 'not-a-cursor', pageSize: 10 })).rejects.toThrow(/cursor/i);
  });
});

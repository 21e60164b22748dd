import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_META } from '../../internal/contract/areas/params.js';
import type { TestWorld } from '../support/core-process.js';
import { startLateWorld } from '../support/late-world.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { echoServer, server } from '../support/profiles.js';

const run = promisify(execFile);

/**
 * A caller whose profile has a healthy server, one that does not finish starting until the test says so,
 * and one that floods its stdout with 100 MB of non-JSON: a stock SDK client through mcpdmcp gets the
 * healthy tools within the listing budget, is told which servers are missing, and hears list_changed
 * when the slow one arrives.
 */
describe('listings answer within their budget whatever one server does', () => {
  let world: TestWorld;
  let release: () => void;

  beforeAll(async () => {
    ({ world, release } = await startLateWorld(echoServer('healthy', { idleSeconds: 300 }), {
      others: [server('junk', [process.execPath, join(FIXTURES, 'servers/junk.mjs')], { idleSeconds: 300 })],
    }));
  });
  afterAll(async () => world.cleanup());

  it(
    'a stock client gets the healthy tools, the names of the missing servers, and list_changed when the late one answers',
    { timeout: 120_000 },
    async () => {
      const client = await world.gateway('alice');
      let changed!: () => void;
      const listChanged = new Promise<void>((r) => (changed = r));
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());

      const first = await client.listTools();
      const names = first.tools.map((t) => t.name);
      expect(names).toContain('healthy__echo');
      expect(names.some((n) => n.startsWith('late__') || n.startsWith('junk__'))).toBe(false);
      expect(first._meta?.[PENDING_META]).toEqual(['late']);

      // The junk server was cut off, not waited for: its status says why.
      const status = await world.calls().status();
      const junk = status.pools.find((p) => p.references.includes('default/junk'));
      expect(junk?.lastError).toMatch(/stdout lines that are not JSON-RPC/);

      // mcpdctl tools warns about both.
      const ctl = await run(process.execPath, [MCPDCTL, '--socket', world.socket, 'tools', 'alice'], { env: world.env() });
      expect(ctl.stderr).toMatch(/server late could not be listed.*not ready yet/);
      expect(ctl.stderr).toMatch(/server junk could not be listed.*not JSON-RPC/);

      release();
      await listChanged;
      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toContain('late__echo');
      expect(after).toContain('healthy__echo');
    },
  );
});

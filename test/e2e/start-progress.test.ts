import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withStartProgress } from '../../internal/ctl/start-progress.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';

const GATED = join(FIXTURES, 'servers', 'gated.mjs');

describe('progress while servers start for a first listing', () => {
  let world: TestWorld | undefined;
  afterEach(async () => world?.cleanup());

  it('shows on a terminal which servers are starting and for how long, then how long it took', async () => {
    const w = (world = new TestWorld({}));
    const gate = join(w.dir, 'gate');
    w.write(
      'profiles/default.yaml',
      `servers:\n  - name: slowpoke\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(GATED)}]\n    env:\n      MCPD_TEST_TAG: \${MCPD_TEST_TAG}\n      GATE_FILE: ${JSON.stringify(gate)}\n`,
    );
    w.write('runtime.yaml', 'metricsAddress: ""\n');
    await w.startCore();
    const client = createControlClient(w.socket);
    try {
      let shown = '';
      const listing = new ControlCalls(client).listTools({ caller: 'anyone', cursor: '', pageSize: 0 });
      const done = withStartProgress(client, listing, { isTTY: true, write: (s) => (shown += s) });
      await waitFor('a progress line naming the starting server', () =>
        /starting servers \([\d.]+ s\): default\/slowpoke [\d.]+ s/.test(shown),
      );
      writeFileSync(gate, '');
      const page = await done;
      expect(page.tools.map((t) => t.name)).toContain('slowpoke__echo');
      expect(shown).toMatch(/servers started in [\d.]+ s\n$/);

      // Not a terminal: nothing is written, the answer is the same.
      let quiet = '';
      await withStartProgress(client, new ControlCalls(client).listTools({ caller: 'anyone', cursor: '', pageSize: 0 }), {
        isTTY: false,
        write: (s) => (quiet += s),
      });
      expect(quiet).toBe('');
    } finally {
      client.close();
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCoreDaemon } from './autostart.js';
import { CORE_NODE_FLAGS } from './core-node-flags.js';

const REPO = join(import.meta.dirname, '..', '..');

describe('the core is started with CORE_NODE_FLAGS however it is started', () => {
  it('the mcpd executable gives them on its first line (npm runs it through that line)', () => {
    const first = readFileSync(join(REPO, 'cmd/mcpd/main.ts'), 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${CORE_NODE_FLAGS.join(' ')}`);
  });

  it('make run gives them', () => {
    const run = /^run:.*\n\t(.*)$/m.exec(readFileSync(join(REPO, 'Makefile'), 'utf8'))?.[1];
    expect(run).toBe(`node ${CORE_NODE_FLAGS.join(' ')} dist/cmd/mcpd/main.js --config $(CONFIG) $(ARGS)`);
  });

  it('autostart gives them to the core it starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpd-flags-'));
    try {
      // A stand-in core: says with which Node flags it runs, then fails, so `failed` settles with what it said.
      const entry = join(dir, 'core.mjs');
      writeFileSync(entry, "process.stderr.write('mcpd: flags ' + process.execArgv.join(' ') + '\\n'); process.exit(3);\n");
      const started = startCoreDaemon({ coreEntry: entry, socket: join(dir, 'core.sock'), logFile: join(dir, 'core.log') });
      expect(await started.failed).toBe(`mcpd: flags ${CORE_NODE_FLAGS.join(' ')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

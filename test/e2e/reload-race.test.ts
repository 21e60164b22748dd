import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { countProcs, waitFor } from '../support/procs.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';

const MARKER_SERVER = `${FIXTURES}/servers/marker.mjs`;
/** One server whose every answer is its MARKER: each edit is a new spec, so a new pool. */
const store = (marker: string) =>
  `servers:\n  - name: mk\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(MARKER_SERVER)}]\n    env:\n      MCPD_TEST_TAG: \${MCPD_TEST_TAG}\n      MARKER: ${marker}\n    idleSeconds: 300\n`;

/** Every answer names an edit, or the request failed saying reloads kept overtaking it. */
const ANSWER = /^ok (start|edit-\d+|final)$|UNAVAILABLE: .*reload/;

/**
 * prompts/get and resources/read by name/URI follow the rule tool calls have (faults-heavy "100 store
 * edits"): a request that a reload overtakes while it resolves — its pool removed, or the name briefly
 * unknown while the new spec is listed — resolves again against the new store instead of failing with
 * NOT_FOUND or "no server pool".
 */
describe('prompts/get and resources/read while the store is edited 100 times a second', () => {
  let world: TestWorld;
  let client: Client;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': store('start'),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
    });
    await world.startCore();
    client = await world.gateway('reader');
  });
  afterAll(async () => world.cleanup());

  const getPrompt = () =>
    client.getPrompt({ name: 'mk__marker' }).then(
      (r) => `ok ${(r.messages[0]?.content as { text: string }).text}`,
      (e: Error) => e.message,
    );
  const readResource = () =>
    client.readResource({ uri: 'fixture://marker' }).then(
      (r) => `ok ${(r.contents[0] as { text: string }).text}`,
      (e: Error) => e.message,
    );

  it('every request answers from some edit (or says reloads kept overtaking it), and the last edit wins', async () => {
    expect(await getPrompt()).toBe('ok start');
    expect(await readResource()).toBe('ok start');
    const ctl = createControlClient(world.socket);
    const calls = new ControlCalls(ctl);
    let edits = 0;
    let applied = 0;
    const t0 = Date.now();
    const reloads: Promise<void>[] = [];
    try {
      const editing = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          edits++;
          // Every tenth edit is invalid (rejected whole): the running store stays. The file watcher
          // debounces a burst of edits into one reload; a Reload RPC after each edit applies every one.
          writeAtomically(edits % 10 === 0 ? 'servers: [this is: not valid\n' : store(`edit-${edits}`));
          reloads.push(calls.reload().then((r) => void (applied += r.applied ? 1 : 0)));
          if (edits === 100) {
            clearInterval(timer);
            resolve();
          }
        }, 30);
      });
      const prompts: string[] = [];
      const reads: string[] = [];
      const loop = async (out: string[], request: () => Promise<string>) => {
        while (edits < 100) out.push(await request());
      };
      await Promise.all([editing, loop(prompts, getPrompt), loop(reads, readResource)]);
      await Promise.all(reloads);
      writeAtomically(store('final'));
      await calls.reload();
      expect(await getPrompt()).toBe('ok final');
      expect(await readResource()).toBe('ok final');

      const failed = [...prompts, ...reads].filter((o) => !o.startsWith('ok '));
      process.stdout.write(
        `reload race: ${prompts.length} prompts/get and ${reads.length} resources/read during 100 edits in ${((Date.now() - t0) / 1000).toFixed(1)} s (${applied} reloads applied), ${failed.length} failed` +
          (failed.length ? `: ${[...new Set(failed)].slice(0, 3).join(' | ')}` : '') +
          '\n',
      );
      for (const o of [...prompts, ...reads]) expect(o).toMatch(ANSWER);
      expect(prompts.length).toBeGreaterThan(0);
      expect(reads.length).toBeGreaterThan(0);
      expect(applied).toBeGreaterThan(10);
    } finally {
      ctl.close();
    }
    await waitFor('superseded pools to stop their servers', () => countProcs(world.tag, MARKER_SERVER) === 1, 60_000);
  });

  /** A whole file at once (rename): the watcher must never read a half-written profile. */
  function writeAtomically(text: string): void {
    const tmp = join(world.dir, `profile-${process.hrtime.bigint()}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(world.configDir, 'profiles/default.yaml'));
  }
});

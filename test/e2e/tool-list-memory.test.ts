import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_RUNTIME_YAML, TestWorld } from '../support/core-process.js';
import { SUPPORT } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { shiftingTool, startShiftingTools, type ShiftingTools } from '../support/shifting-tools.js';

const MiB = 1024 * 1024;
const TOOLS = 256;
const CHANGES = 20;
/**
 * Heap growth allowed after CHANGES changes of a 2 MiB list, measured after a full GC. Keeping every
 * superseded list (and the pins' text) grew it by about 84 MiB, and a copy of the unchanged tools in each
 * snapshot a cursor keeps by about 44 MiB; fixed, the growth is under 3 MiB.
 */
const GROWTH_BOUND_MIB = 15;

/**
 * A list of about 2 MiB: TOOLS tools of 8 KiB each, new names in every version (so each is pinned on
 * first sight and callers see it), and a description of its own so no tool looks like another renamed.
 */
const bigList = (version: number) =>
  Array.from({ length: TOOLS }, (_, i) => shiftingTool(`tool${i}_v${version}`, `v${version} t${i} `.padEnd(8192, `${version % 10}`)));

/** The core of `world` with the heap probe preloaded (test/support/heap-probe.mjs), serving the shifting-tools fixture. */
async function startProbed(world: TestWorld): Promise<{ st: ShiftingTools; heapUsedMiB: () => Promise<number> }> {
  const probe = join(world.dir, 'heap.json');
  const st = await startShiftingTools(world, {
    NODE_OPTIONS: `--expose-gc --import=${join(SUPPORT, 'heap-probe.mjs')}`,
    MCPD_HEAP_PROBE: probe,
  });
  const pid = world.cores[0]?.pid as number;
  /** The core's used heap after a full GC. */
  const heapUsedMiB = async () => {
    rmSync(probe, { force: true });
    process.kill(pid, 'SIGUSR2');
    await waitFor('the heap probe to answer', () => existsSync(probe), 60_000);
    return (JSON.parse(readFileSync(probe, 'utf8')) as { used_heap_size: number }).used_heap_size / MiB;
  };
  return { st, heapUsedMiB };
}

describe('the core memory as a server tool list keeps changing', () => {
  let world: TestWorld;
  let st: ShiftingTools;
  let heapUsedMiB: () => Promise<number>;

  beforeAll(async () => {
    // One page holds the whole list: a client that reads it in one call is handed no cursor to keep it alive for.
    world = new TestWorld({ 'runtime.yaml': `${TEST_RUNTIME_YAML}pageSize: 1000\n` });
    ({ st, heapUsedMiB } = await startProbed(world));
  });
  afterAll(async () => world.cleanup());

  it('keeps no superseded list nobody pages: the heap after GC does not grow with the changes', async () => {
    // A first listing, so the client is told of changes.
    expect(await st.names()).toContain('p__notify');
    await st.shift(bigList(0));
    expect(await st.names()).toHaveLength(TOOLS + 2);
    const base = await heapUsedMiB();
    for (let v = 1; v <= CHANGES; v++) {
      await st.shift(bigList(v));
      const names = await st.names();
      expect(names).toContain(`p__tool0_v${v}`);
      expect(names).not.toContain(`p__tool0_v${v - 1}`);
    }
    const after = await heapUsedMiB();
    expect(after - base, `heap after GC ${base.toFixed(1)} → ${after.toFixed(1)} MiB over ${CHANGES} changes`).toBeLessThan(
      GROWTH_BOUND_MIB,
    );
  }, 240_000);
});

describe('the core memory as one tool of a big list keeps changing, with a client paging', () => {
  let world: TestWorld;
  let st: ShiftingTools;
  let heapUsedMiB: () => Promise<number>;

  beforeAll(async () => {
    // The default page size (100): every listing of the 257 tools hands out a cursor, which keeps its snapshot.
    world = new TestWorld({});
    ({ st, heapUsedMiB } = await startProbed(world));
  });
  afterAll(async () => world.cleanup());

  /** The 2 MiB of version 0 every time, and one small tool new in each version (callers see the change). */
  const oneNew = (version: number) => [
    ...bigList(0),
    shiftingTool(`mark${version}`, `new in version ${version}, so no earlier tool looks renamed`),
  ];

  it('shares the unchanged tools between the snapshots the cursors keep', async () => {
    expect(await st.names()).toContain('p__notify');
    await st.shift(oneNew(0));
    await st.names();
    const base = await heapUsedMiB();
    for (let v = 1; v <= CHANGES; v++) {
      await st.shift(oneNew(v));
      // The first page (a cursor is handed out), then the rest to see the new tool.
      let page = await st.client.listTools();
      const names = page.tools.map((t) => t.name);
      while (page.nextCursor) {
        page = await st.client.listTools({ cursor: page.nextCursor });
        names.push(...page.tools.map((t) => t.name));
      }
      expect(names).toContain(`p__mark${v}`);
      expect(names).toHaveLength(TOOLS + 3);
    }
    const after = await heapUsedMiB();
    expect(after - base, `heap after GC ${base.toFixed(1)} → ${after.toFixed(1)} MiB over ${CHANGES} changes`).toBeLessThan(
      GROWTH_BOUND_MIB,
    );
  }, 240_000);
});

import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ControlCalls } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

/** Three distinct server specs (distinct tool counts, so distinct fingerprints and tool lists). */
const SPECS = ['s1', 's2', 's3'] as const;
const PROFILES = ['default', 'pa', 'pb', 'pc'] as const;
const CALLERS = ['c1', 'c2'] as const;

/** A store: each present profile's servers, and each caller's mapping (absent = `default`). */
interface StoreShape {
  profiles: Partial<Record<(typeof PROFILES)[number], (typeof SPECS)[number][]>>;
  callers: Partial<Record<(typeof CALLERS)[number], (typeof PROFILES)[number]>>;
}

function specBlock(name: (typeof SPECS)[number]): string {
  return echoServer(name, { idleSeconds: 300 }, { ECHO_TOOL_COUNT: name.slice(1) });
}

function files(shape: StoreShape): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, specs] of Object.entries(shape.profiles)) out[`profiles/${name}.yaml`] = profile(...specs.map(specBlock));
  const lines = Object.entries(shape.callers).map(([c, p]) => `  ${c}: ${p}`);
  out['callers.yaml'] = lines.length ? `callers:\n${lines.join('\n')}\n` : 'callers: {}\n';
  return out;
}

/** Every "profile/server" the store's pools are referenced by, as status shows them. */
function references(shape: StoreShape): string[] {
  return Object.entries(shape.profiles)
    .flatMap(([p, specs]) => specs.map((s) => `${p}/${s}`))
    .sort();
}

const specSet = fc.uniqueArray(fc.constantFrom(...SPECS), { minLength: 1, maxLength: 3 });
const shapeArb: fc.Arbitrary<StoreShape> = fc
  .record({
    default: specSet,
    pa: fc.option(specSet, { nil: undefined }),
    pb: fc.option(specSet, { nil: undefined }),
    pc: fc.option(specSet, { nil: undefined }),
    c1: fc.constantFrom<(typeof PROFILES)[number] | undefined>(undefined, ...PROFILES),
    c2: fc.constantFrom<(typeof PROFILES)[number] | undefined>(undefined, ...PROFILES),
  })
  .map((r) => {
    const profiles: StoreShape['profiles'] = { default: r.default };
    for (const p of ['pa', 'pb', 'pc'] as const) if (r[p]) profiles[p] = r[p];
    const callers: StoreShape['callers'] = {};
    // A caller mapped to a profile the store does not have would make the whole edit invalid.
    for (const c of CALLERS) if (r[c] && profiles[r[c]]) callers[c] = r[c];
    return { profiles, callers };
  });

const ECHO_BUILTINS = ['echo', 'slow', 'churn', 'pid', 'stderr', 'env', 'crash', 'kill9', 'hang', 'freeze'];

/**
 * The tools a caller should see under `shape`, from the echo fixture's known list (its built-ins plus
 * ECHO_TOOL_COUNT generated ones). Checked against a real fresh start at the end of every sequence.
 */
function modelListing(shape: StoreShape, caller: string): string[] {
  const prof = shape.callers[caller as (typeof CALLERS)[number]] ?? 'default';
  return (shape.profiles[prof] ?? [])
    .flatMap((s) => {
      const generated = Array.from({ length: Number(s.slice(1)) }, (_, i) => `t${String(i).padStart(4, '0')}`);
      return [...ECHO_BUILTINS, ...generated].map((t) => `${s}__${t}`);
    })
    .sort();
}

async function toolNames(calls: ControlCalls, caller: string): Promise<string[]> {
  const names: string[] = [];
  let cursor = '';
  do {
    const page = await calls.listTools({ caller, cursor, pageSize: 0 });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names.sort();
}

/** What a core started fresh on this store lists, per caller (the property's oracle). */
async function freshListing(shape: StoreShape): Promise<Record<string, string[]>> {
  const fresh = new TestWorld(files(shape));
  try {
    await fresh.startCore();
    const out: Record<string, string[]> = {};
    for (const c of [...CALLERS, 'unmapped']) out[c] = await toolNames(fresh.calls(), c);
    return out;
  } finally {
    await fresh.cleanup();
  }
}

describe('hot reloads list what a fresh start on the final store lists', () => {
  let world: TestWorld;
  let current: StoreShape = { profiles: { default: ['s1'] }, callers: {} };
  const sessions = new Map<string, Client>();

  beforeAll(async () => {
    world = new TestWorld(files(current));
    await world.startCore();
    // Real clients stay attached through every edit, as the user's were.
    for (const c of CALLERS) sessions.set(c, await world.gateway(c));
  });
  afterAll(async () => world.cleanup());

  /** Writes the edit (profiles gone are deleted) and waits until status shows it applied. */
  async function edit(next: StoreShape): Promise<void> {
    for (const p of PROFILES) if (current.profiles[p] && !next.profiles[p]) rmSync(join(world.configDir, `profiles/${p}.yaml`));
    for (const [rel, text] of Object.entries(files(next))) world.write(rel, text);
    current = next;
    const want = references(next);
    await waitFor('the edit to be applied', async () => {
      const st = await world.calls().status();
      const refs = st.pools.flatMap((p) => p.references).sort();
      const mapped = CALLERS.every((c) => st.callers.find((r) => r.caller === c)?.profile === (next.callers[c] ?? 'default'));
      return mapped && JSON.stringify(refs) === JSON.stringify(want);
    });
  }

  it('a profile that reuses existing specs, added with its caller mapping in one edit, lists its tools at once', async () => {
    await toolNames(world.calls(), 'c1'); // the spec's tools are cached, as in the report
    // `cp profiles/default.yaml profiles/reuse.yaml` plus a caller mapped to it, in one edit.
    await edit({ profiles: { default: ['s1'], pa: ['s1'] }, callers: { c1: 'pa' } });
    await world.waitForLogLine('the edit applied', /"configuration applied".*"profiles":\["pa"\]/);
    const { stdout } = await run(process.execPath, [MCPDCTL, 'tools', 'c1', '--socket', world.socket]);
    expect(stdout).toContain('s1__echo');
    expect(await toolNames(world.calls(), 'c1')).toContain('s1__echo');
    const listed = (await (sessions.get('c1') as Client).listTools()).tools.map((t) => t.name);
    expect(listed).toContain('s1__echo');
    const r = await (sessions.get('c1') as Client).callTool({ name: 's1__echo', arguments: { hello: 'after reload' } });
    expect(JSON.stringify(r.content)).toContain('after reload');
  });

  it('any sequence of edits ends where a fresh start on the final store would', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(shapeArb, { minLength: 1, maxLength: 3 }), async (edits) => {
        for (const next of edits) {
          await edit(next);
          // Listing after every edit keeps the specs' tools cached, as a client in use does.
          for (const c of [...CALLERS, 'unmapped']) expect(await toolNames(world.calls(), c), `caller ${c}`).toEqual(modelListing(next, c));
        }
        const final = edits[edits.length - 1] as StoreShape;
        const expected = await freshListing(final);
        for (const c of [...CALLERS, 'unmapped']) expect(expected[c], `fresh start, caller ${c}`).toEqual(modelListing(final, c));
        for (const c of [...CALLERS, 'unmapped']) expect(await toolNames(world.calls(), c), `caller ${c}`).toEqual(expected[c]);
        for (const c of CALLERS) {
          const listed = (await (sessions.get(c) as Client).listTools()).tools.map((t) => t.name).sort();
          expect(listed, `caller ${c} through its gateway`).toEqual(expected[c]);
        }
      }),
      { numRuns: Number(process.env.MCPD_RELOAD_RUNS ?? 8), verbose: true, endOnFailure: true },
    );
  }, 240_000);
});

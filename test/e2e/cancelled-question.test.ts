import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { sharedPoolWorld } from '../support/shared-pool-world.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { profile, server } from '../support/profiles.js';

const ASKING = join(FIXTURES, 'servers/asking.mjs');
type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/**
 * A caller whose client either answers every question with `answer`, or (answer undefined) holds it open
 * until `answerNow` is called or it is withdrawn.
 */
async function asker(world: TestWorld, caller: string, answer?: string) {
  const asked: string[] = [];
  const withdrawn: string[] = [];
  let answerNow: (answer: string) => void = () => undefined;
  const client: Client = await world.gateway(caller, [], { elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, (req, extra) => {
    const message = String(req.params.message);
    asked.push(message);
    if (answer !== undefined) return Promise.resolve({ action: 'accept' as const, content: { answer } });
    return new Promise((resolve, reject) => {
      answerNow = (a) => resolve({ action: 'accept' as const, content: { answer: a } });
      extra.signal.addEventListener('abort', () => {
        withdrawn.push(message);
        reject(new Error('withdrawn'));
      });
    });
  });
  return { client, asked, withdrawn, answer: (a: string) => answerNow(a) };
}

/** Bob's call asks him `bob-question`, and he gives the call up while the question is open. */
async function cancelWhileAsked(client: Client, asked: () => boolean): Promise<void> {
  const ac = new AbortController();
  const call = client.callTool({ name: 'ask__ask', arguments: { label: 'bob-question' } }, undefined, { signal: ac.signal }).then(
    () => 'answered',
    (e: unknown) => String(e),
  );
  await waitFor('the question to reach bob', asked);
  ac.abort();
  expect(await call).toMatch(/abort/i);
}

describe('a call cancelled while its server asks its caller', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // One instance, one call at a time, shared by alice and bob: the setting of decision 20.
    world = await sharedPoolWorld(server('ask', [process.execPath, ASKING], { idleSeconds: 300, maxInstances: 1, maxConcurrent: 1 }));
  });
  afterAll(async () => world.cleanup());

  it("withdraws the open question from bob's client, and the instance asks alice her own next question", async () => {
    const bob = await asker(world, 'bob');
    const alice = await asker(world, 'alice', 'from-alice');
    await cancelWhileAsked(bob.client, () => bob.asked.length === 1);
    await waitFor("bob's open question to be withdrawn (cancelled toward his client)", () => bob.withdrawn.length === 1);
    expect(bob.withdrawn).toEqual(['bob-question']);

    // Twice: the instance stays usable for questions, not just once.
    for (const round of [1, 2]) {
      const r = await alice.client.callTool({ name: 'ask__ask', arguments: { label: `alice-question-${round}` } });
      expect(textOf(r)).toBe('from-alice');
    }
    expect(alice.asked).toEqual(['alice-question-1', 'alice-question-2']);
    expect(bob.asked).toEqual(['bob-question']);
  });

  it("a question left open does not starve other callers' reads: read-only tools use its slot, others wait their turn", async () => {
    const bob = await asker(world, 'bob');
    const alice = await asker(world, 'alice', 'unused');
    const bobCall = bob.client.callTool({ name: 'ask__ask', arguments: { label: 'held-open' } }).then(textOf);
    await waitFor('the question to reach the asked client', () => bob.asked.length === 1);
    // The instance's only slot is the asking call's; a read-only tool runs in it now, again and again.
    for (const round of [1, 2])
      expect(textOf(await alice.client.callTool({ name: 'ask__peek', arguments: {} })), `round ${round}`).toBe('peeked');
    // A tool not marked read-only may ask, so it waits for the slot: it runs once the question is answered.
    let poked = false;
    const poke = alice.client.callTool({ name: 'ask__poke', arguments: {} }).then((r) => ((poked = true), textOf(r)));
    expect(textOf(await alice.client.callTool({ name: 'ask__peek', arguments: {} }))).toBe('peeked');
    expect(poked).toBe(false);
    bob.answer('late but fine');
    expect(await bobCall).toBe('late but fine');
    expect(await poke).toBe('poked');
  }, 60_000);
});

describe('a call that comes while the server has not yet read a cancel', () => {
  let world: TestWorld;
  const gate = () => join(world.dir, 'ping-gate');
  beforeAll(async () => {
    // The server holds its answer to the ping the core sends after a cancel until the test opens the gate:
    // the window in which the instance's questions may still be the cancelled call's (decision 58), made
    // as long as the test needs. No periodic pings: only the cancel's is held.
    world = new TestWorld({
      'profiles/default.yaml': 'servers: []\n',
      'callers.yaml': 'callers:\n  alice: pa\n  bob: pb\n',
      'runtime.yaml': 'metricsAddress: ""\npingIntervalSeconds: 0\n',
    });
    // alice and bob share the pool (one spec), which has one instance.
    const shared = server('ask', [process.execPath, ASKING], { idleSeconds: 300, maxInstances: 1 }, { ASKING_HOLD_PING: gate() });
    for (const p of ['pa', 'pb']) world.write(`profiles/${p}.yaml`, profile(shared));
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it("waits for the server to read bob's cancel, then alice's question reaches her (it was refused before)", async () => {
    const bob = await asker(world, 'bob');
    const alice = await asker(world, 'alice', 'from-alice');
    await cancelWhileAsked(bob.client, () => bob.asked.length === 1);
    await waitFor('the core to ping the server after the cancel', () => existsSync(`${gate()}.ping`));

    let settled = false;
    const aliceCall = alice.client
      .callTool({ name: 'ask__ask', arguments: { label: 'alice-question' } })
      .then((r) => ((settled = true), textOf(r)));
    const status = world.calls();
    // The instance is the pool's only one, and it may still ask for bob's call: alice's call waits for it.
    await waitFor('alice’s call to wait for the instance (or, as before the fix, to be answered)', async () => {
      if (settled) return true;
      const pools = (await status.status()).pools;
      return pools.some((p) => p.waiting === 1);
    });
    writeFileSync(gate(), '');
    expect(await aliceCall).toBe('from-alice');
    expect(alice.asked).toEqual(['alice-question']);
    expect(bob.asked).toEqual(['bob-question']);
  }, 120_000);
});

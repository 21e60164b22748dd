import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Metadata } from '@grpc/grpc-js';
import { collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { LOGS_FOLLOW_METADATA } from '../../internal/contract/areas/logs.js';
import type { TestWorld } from '../support/core-process.js';
import { sharedPoolWorld } from '../support/shared-pool-world.js';
import { waitFor } from '../support/procs.js';
import { everythingServer } from '../support/profiles.js';

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const outcome = (p: Promise<unknown>) =>
  p.then(
    (r) => textOf(r),
    (e: unknown) => String(e),
  );

/** A client that samples, answering only when the test opens its gate; records every prompt it was asked. */
async function samplingClient(world: TestWorld, caller: string, answer: string) {
  const prompts: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const client: Client = await world.gateway(caller, [], { sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content;
    prompts.push(first && 'text' in first ? String(first.text) : '');
    await gate;
    return { role: 'assistant', content: { type: 'text', text: answer }, model: 'test-model' };
  });
  return { client, prompts, open };
}

describe('server→client requests stay with their caller', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // Same spec in two profiles: one pool, one instance, shared by alice and bob.
    const shared = everythingServer('every', { idleSeconds: 300, maxInstances: 1 });
    world = await sharedPoolWorld(shared);
  });
  afterAll(async () => world.cleanup());

  it("never delivers alice's sampling request to bob while bob has a call in flight on the shared pool", async () => {
    const bob = await samplingClient(world, 'bob', 'bob-answer');
    const alice = await samplingClient(world, 'alice', 'alice-answer');
    alice.open();
    const bobCall = outcome(
      bob.client.callTool({ name: 'every__trigger-sampling-request', arguments: { prompt: 'bob-prompt', maxTokens: 5 } }),
    );
    await waitFor("bob's own sampling request to reach bob", () => bob.prompts.length === 1);

    let aliceText: string | undefined;
    void outcome(
      alice.client.callTool({ name: 'every__trigger-sampling-request', arguments: { prompt: 'alice-prompt', maxTokens: 5 } }),
    ).then((t) => (aliceText = t));
    // With the defect, alice's request reaches bob's client (a second prompt) and waits on bob's gate.
    await waitFor("alice's call to end or bob to be asked again", () => aliceText !== undefined || bob.prompts.length > 1);
    bob.open();
    await waitFor("alice's call to end", () => aliceText !== undefined);

    expect(bob.prompts).toHaveLength(1);
    expect(bob.prompts[0]).toContain('bob-prompt');
    expect(aliceText).not.toContain('bob-answer');
    // The instance asked bob's client, so each call now gets an instance of its own (decision 66), and bob's
    // call waiting on bob does not count toward maxInstances: alice's question goes to alice, on hers.
    expect(aliceText).toContain('alice-answer');
    expect(await bobCall).toContain('bob-answer');
  });

  it("shows a 'caller detached' event, with its session id, only to that caller", async () => {
    const carol = await world.gateway('carol');
    // A request makes sure carol's session reached the core: the gateway answers initialize before it
    // connects (and a session closed before it connected never attached, so it cannot detach).
    await carol.listTools();
    await carol.close();
    await waitFor('the core to log that carol left', () => world.coreLog.join('').includes('caller detached'));
    const client = createControlClient(world.socket);
    try {
      const recent = async (caller: string) => {
        const md = new Metadata();
        md.set(LOGS_FOLLOW_METADATA, 'false');
        const events: string[] = [];
        await collectStream(client.streamLogs({ caller, minLevel: 'info' }, md), (e) => events.push(`${e.event} ${e.message}`));
        return events;
      };
      expect((await recent('carol')).some((m) => m.includes('caller detached'))).toBe(true);
      expect((await recent('dave')).some((m) => m.includes('caller detached'))).toBe(false);
    } finally {
      client.close();
    }
  });
});

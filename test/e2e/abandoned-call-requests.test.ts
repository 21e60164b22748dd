import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import type { TestWorld } from '../support/core-process.js';
import { sharedPoolWorld } from '../support/shared-pool-world.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { server } from '../support/profiles.js';

const LATE_SAMPLER = join(FIXTURES, 'servers/late-sampler.mjs');

/** A client that samples and answers at once; records every prompt it was shown. */
async function samplingClient(world: TestWorld, caller: string) {
  const prompts: string[] = [];
  const client: Client = await world.gateway(caller, [], { sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    const first = req.params.messages[0]?.content;
    prompts.push(first && 'text' in first ? String(first.text) : '');
    return Promise.resolve({ role: 'assistant', content: { type: 'text', text: `${caller}-answer` }, model: 'test-model' });
  });
  return { client, prompts };
}

describe('a server→client request whose call ended goes to no one', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // One pool shared by alice and bob, one instance serving one call at a time: the isolation that
    // decision 20 recommends, and still the request of bob's ended call reached alice.
    const shared = server('late', [process.execPath, LATE_SAMPLER], { idleSeconds: 300, maxInstances: 1, maxConcurrent: 1 });
    world = await sharedPoolWorld(shared);
  });
  afterAll(async () => world.cleanup());

  it("refuses to the server, and shows no one, the sampling request of bob's cancelled call while alice's call runs there", async () => {
    const bob = await samplingClient(world, 'bob');
    const alice = await samplingClient(world, 'alice');
    const bobGate = join(world.dir, 'bob-gate');
    const bobOut = join(world.dir, 'bob-out');
    const ac = new AbortController();
    const bobCall = bob.client
      .callTool({ name: 'late__sample_later', arguments: { gate: bobGate, out: bobOut, prompt: 'bob-secret-prompt' } }, undefined, {
        signal: ac.signal,
      })
      .then(
        () => 'answered',
        (e: unknown) => String(e),
      );
    await waitFor("bob's call to reach the server", () => existsSync(`${bobOut}.started`));
    ac.abort();
    expect(await bobCall).toMatch(/abort/i);

    const aliceGate = join(world.dir, 'alice-gate');
    const aliceCall = alice.client.callTool({ name: 'late__wait', arguments: { gate: aliceGate } });
    await waitFor("alice's call to run on the same instance", () => existsSync(`${aliceGate}.started`));

    writeFileSync(bobGate, ''); // the server now asks, on behalf of bob's ended call
    await waitFor('the server to learn the outcome of its request', () => existsSync(bobOut));
    writeFileSync(aliceGate, '');
    await aliceCall;

    expect(alice.prompts).toEqual([]);
    expect(bob.prompts).toEqual([]);
    expect(readFileSync(bobOut, 'utf8')).toMatch(/^error: .*a call on that instance ended while the server was still working on it/);
  });
});

describe('a gRPC routing_key stays with its caller', () => {
  let world: TestWorld;
  beforeAll(async () => {
    const shared = server('late', [process.execPath, LATE_SAMPLER], { idleSeconds: 300, maxInstances: 1 });
    world = await sharedPoolWorld(shared);
  });
  afterAll(async () => world.cleanup());

  it("does not let a gRPC CallTool's routing_key attach to another caller's gateway session", async () => {
    const alice = await samplingClient(world, 'alice');
    const line = await world.waitForLogLine("alice's gateway session to attach", /caller attached.*"caller":"alice"/);
    const session = /"session":"([^"]+)"/.exec(line)?.[1];
    expect(session).toBeTruthy();
    const gate = join(world.dir, 'grpc-gate');
    const out = join(world.dir, 'grpc-out');
    writeFileSync(gate, '');
    const control = createControlClient(world.socket);
    try {
      const results: string[] = [];
      // bob names alice's gateway session as its routing key: its server's request must not reach alice.
      const stream = control.callTool({
        caller: 'bob',
        name: 'late__sample_later',
        argumentsJson: Buffer.from(JSON.stringify({ gate, out, prompt: 'mallory-prompt' })),
        routingKey: session ?? '',
        timeoutMs: 0,
      });
      await collectStream(stream, (ev) => ev.resultJson && results.push(ev.resultJson.toString()));
    } finally {
      control.close();
    }
    expect(alice.prompts).toEqual([]);
    expect(readFileSync(out, 'utf8')).toMatch(/^error: /);
  });
});

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

/** A client that is shown sampling requests and never answers them: only a withdrawal ends one. */
async function silentClient(world: TestWorld, caller: string) {
  const prompts: string[] = [];
  const withdrawn: string[] = [];
  const client: Client = await world.gateway(caller, [], { sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => {
    const first = req.params.messages[0]?.content;
    const prompt = first && 'text' in first ? String(first.text) : '';
    prompts.push(prompt);
    return new Promise((_resolve, reject) =>
      extra.signal.addEventListener('abort', () => {
        withdrawn.push(prompt);
        reject(new Error('withdrawn'));
      }),
    );
  });
  return { client, prompts, withdrawn };
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

  it("withdraws bob's open sampling request when his call is cancelled: the server gets an error, alice is shown nothing", async () => {
    const bob = await silentClient(world, 'bob');
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
    writeFileSync(bobGate, ''); // the server asks, on behalf of bob's call
    await waitFor('bob to be asked', () => bob.prompts.length === 1);
    ac.abort();
    expect(await bobCall).toMatch(/abort/i);
    await waitFor("bob's open request to be withdrawn", () => bob.withdrawn.length === 1);
    await waitFor('the server to learn the outcome of its request', () => existsSync(bobOut));
    expect(readFileSync(bobOut, 'utf8')).toMatch(/^error: .*withdrew the request: the call it was asked for ended/);

    const aliceGate = join(world.dir, 'alice-gate');
    writeFileSync(aliceGate, '');
    await alice.client.callTool({ name: 'late__wait', arguments: { gate: aliceGate } });
    expect(alice.prompts).toEqual([]);
    expect(bob.prompts).toEqual(['bob-secret-prompt']);
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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** The tool result, or the JSON-RPC error, as text: a refusal may come back either way. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (r) => textOf(r),
    (e: unknown) => String(e),
  );

describe('server→client requests (sampling, elicitation, roots) through the core and the gateway', () => {
  let world: TestWorld;
  let capable: Client;
  let plain: Client;
  const sampled: string[] = [];
  let roots = [{ uri: 'file:///work/first-root', name: 'First' }];
  let rootsAsked = 0;

  beforeAll(async () => {
    // stateful: the caller session stays bound to its instance, so a roots/list the server sends after a
    // roots/list_changed (no call in flight) still reaches that caller.
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300, strategy: 'stateful', maxInstances: 1 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    capable = await world.gateway('capable', [], { sampling: {}, elicitation: {}, roots: { listChanged: true } });
    capable.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const first = req.params.messages[0]?.content;
      sampled.push(first && 'text' in first ? String(first.text) : '');
      return { role: 'assistant', content: { type: 'text', text: 'canned-answer-42' }, model: 'test-model' };
    });
    capable.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace' } }));
    capable.setRequestHandler(ListRootsRequestSchema, async () => {
      rootsAsked++;
      return { roots };
    });
    plain = await world.gateway('plain');
  });
  afterAll(async () => world.cleanup());

  it("answers a server's sampling request with the calling client's answer", async () => {
    const r = await capable.callTool({ name: 'every__trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 10 } });
    expect((r as ToolResult).isError).not.toBe(true);
    expect(textOf(r)).toContain('canned-answer-42');
    expect(sampled.at(-1)).toContain('say hi');
  });

  it("answers a server's elicitation request with the calling client's answer", async () => {
    const r = await capable.callTool({ name: 'every__trigger-elicitation-request', arguments: {} });
    expect(textOf(r)).toContain('Name: Ada Lovelace');
  });

  it("answers a server's roots/list with the calling client's roots", async () => {
    const r = await capable.callTool({ name: 'every__get-roots-list', arguments: {} });
    expect(textOf(r)).toContain('file:///work/first-root');
  });

  it("passes the client's roots/list_changed to the servers, which then ask for the new roots", async () => {
    const before = rootsAsked;
    roots = [{ uri: 'file:///work/second-root', name: 'Second' }];
    await capable.sendRootsListChanged();
    await waitFor('the server to ask for the roots again', () => rootsAsked > before);
    // server-everything caches what it was told; its tool now shows the new roots.
    await waitFor('the server to show the new roots', async () =>
      textOf(await capable.callTool({ name: 'every__get-roots-list', arguments: {} })).includes('second-root'),
    );
  });

  it('refuses at once, naming the missing capability, when the calling client cannot sample', async () => {
    // The spec's call timeout is 120 s, beyond the test timeout: only an immediate refusal passes.
    const text = await outcome(plain.callTool({ name: 'every__trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } }));
    expect(text).toMatch(/caller "plain" \(test-plain\) did not declare the "sampling" capability/);
    expect(sampled).not.toContain('Resource trigger-sampling-request context: x');
  });

  it('refuses elicitation likewise for a client without that capability', async () => {
    const e = await outcome(plain.callTool({ name: 'every__trigger-elicitation-request', arguments: {} }));
    expect(e).toMatch(/did not declare the "elicitation" capability/);
  });
});

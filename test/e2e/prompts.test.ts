import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { everythingServer, profile } from '../support/profiles.js';

type PromptResult = { messages: { role: string; content: { type: string; text?: string } }[] };

describe('prompts and completion through the core and the gateway', () => {
  let world: TestWorld;
  let client: Client;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('someone');
  });
  afterAll(async () => world.cleanup());

  it('lists the prompts namespaced like tools', async () => {
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toContain('every__args-prompt');
    expect(names).toContain('every__completable-prompt');
    expect(names.every((n) => n.startsWith('every__'))).toBe(true);
  });

  it('gets a prompt with arguments from its server under the downstream name', async () => {
    const r = (await client.getPrompt({ name: 'every__args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } })) as PromptResult;
    expect(r.messages[0]?.content.text).toBe("What's weather in Lyon, Rhône?");
  });

  it('completes a prompt argument, using the context of earlier arguments', async () => {
    const dept = await client.complete({
      ref: { type: 'ref/prompt', name: 'every__completable-prompt' },
      argument: { name: 'department', value: 'Sa' },
    });
    expect(dept.completion.values).toEqual(['Sales']);
    const who = await client.complete({
      ref: { type: 'ref/prompt', name: 'every__completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Engineering' } },
    });
    expect(who.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);
  });

  it('completes a resource-template argument routed by the template', async () => {
    const r = await client.complete({
      ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '12' },
    });
    expect(r.completion.values).toEqual(['12']);
  });

  it('answers an unknown prompt with an error that suggests the exposed name', async () => {
    const e = (await client.getPrompt({ name: 'args-prompt', arguments: {} }).catch((x: unknown) => x)) as McpError;
    expect(e).toBeInstanceOf(McpError);
    expect(e.message).toMatch(/no prompt named "args-prompt".*every__args-prompt/);
  });

  it('lists prompts with mcpdctl', () => {
    const out = execFileSync(process.execPath, [MCPDCTL, '--socket', world.socket, 'prompts', 'someone'], {
      env: world.env(),
      encoding: 'utf8',
    });
    expect(out).toMatch(/every__args-prompt\s+every\s+city \[state\]/);
  });

  it('passes server-everything progress notifications through to the client', async () => {
    const seen: number[] = [];
    const wire = recordWire(client);
    const r = await client.callTool({ name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    wire.stop();
    expect(JSON.stringify(r)).toContain('Long running operation completed');
    // What the gateway wrote, in the order the client read it: every step (1..4), then the result.
    expect(wire.messages).toEqual(['progress 1', 'progress 2', 'progress 3', 'progress 4', 'result']);
    // In order, from the server's own steps (1..4); the core keeps the final one (see docs/conformance.md).
    expect(seen).toEqual([1, 2, 3, 4]);
  });
});

/** The messages the client's transport hands to the SDK, summarised (progress steps and responses). */
function recordWire(client: Client): { messages: string[]; stop: () => void } {
  const transport = client.transport as Transport;
  const inner = transport.onmessage;
  const messages: string[] = [];
  transport.onmessage = (m, extra) => {
    if ('method' in m && m.method === 'notifications/progress')
      messages.push(`progress ${String((m.params as { progress?: number }).progress)}`);
    else if ('result' in m || 'error' in m) messages.push('result');
    inner?.(m, extra);
  };
  return { messages, stop: () => (transport.onmessage = inner) };
}

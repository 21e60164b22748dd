import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER } from '../support/paths.js';
import { countProcs, waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

describe('shared pools and per-caller views', () => {
  let world: TestWorld;
  let alpha: Client;
  let beta: Client;

  beforeAll(async () => {
    world = new TestWorld({
      // The same spec under two names in two profiles: one pool. `solo` differs by one field: its own pool.
      'profiles/default.yaml': profile(echoServer('alpha', { idleSeconds: 300 })),
      'profiles/dev.yaml': profile(echoServer('beta', { idleSeconds: 300 }), echoServer('solo', { idleSeconds: 300, maxConcurrent: 3 })),
      'callers.yaml': 'callers:\n  one: default\n  two: dev\n',
    });
    await world.startCore();
    alpha = await world.gateway('one');
    beta = await world.gateway('two');
  });
  afterAll(async () => world.cleanup());

  it('gives each caller its own namespaced tool list', async () => {
    const a = (await alpha.listTools()).tools.map((t) => t.name);
    const b = (await beta.listTools()).tools.map((t) => t.name);
    expect(a).toContain('alpha__echo');
    expect(a.some((n) => n.startsWith('beta__') || n.startsWith('solo__'))).toBe(false);
    expect(b).toContain('beta__echo');
    expect(b).toContain('solo__echo');
    expect(b.some((n) => n.startsWith('alpha__'))).toBe(false);
  });

  it('routes a call through each caller to the right server', async () => {
    const r1 = await alpha.callTool({ name: 'alpha__echo', arguments: { said: 'one' } });
    const r2 = await beta.callTool({ name: 'solo__echo', arguments: { said: 'two' } });
    expect(JSON.parse(textOf(r1))).toEqual({ said: 'one' });
    expect(JSON.parse(textOf(r2))).toEqual({ said: 'two' });
  });

  it('runs one process for the spec both profiles share', async () => {
    const p1 = textOf(await alpha.callTool({ name: 'alpha__pid', arguments: {} }));
    const p2 = textOf(await beta.callTool({ name: 'beta__pid', arguments: {} }));
    const p3 = textOf(await beta.callTool({ name: 'solo__pid', arguments: {} }));
    expect(p1).toBe(p2);
    expect(p3).not.toBe(p1);
    // alpha/beta share one process; solo has its own: two echo servers in all.
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(2);
  });

  it('answers an unknown tool with a clear error naming close matches', async () => {
    await expect(alpha.callTool({ name: 'alpha__ecko', arguments: {} })).rejects.toThrow(/no tool named "alpha__ecko".*alpha__echo/);
  });
});

describe('on-demand start, idle reaping, minReady', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        echoServer('lazy', { idleSeconds: 1 }),
        echoServer('warm', { idleSeconds: 1, minReady: 1 }, { ROLE: 'warm' }),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('keeps minReady warm before anyone attaches, and starts nothing else', async () => {
    await waitFor('the warm instance', () => countProcs(world.tag, ECHO_SERVER) === 1);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);
  });

  it('starts the lazy server on demand and reaps it back to zero, keeping minReady', async () => {
    const client = await world.gateway('anyone');
    const warmPid = textOf(await client.callTool({ name: 'warm__pid', arguments: {} }));
    const r = await client.callTool({ name: 'lazy__pid', arguments: {} });
    expect(Number(textOf(r))).toBeGreaterThan(0);
    expect(countProcs(world.tag, ECHO_SERVER)).toBe(2);
    await waitFor('the idle lazy instance to be reaped', () => countProcs(world.tag, ECHO_SERVER) === 1, 20_000);
    // The warm instance sat idle just as long, yet minReady kept the very same process.
    expect(textOf(await client.callTool({ name: 'warm__pid', arguments: {} }))).toBe(warmPid);
  });
});

describe('many clients, one set of servers', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('does not grow server processes with clients, and connect/disconnect cycles leave nothing behind', async () => {
    const baseline = world.pids().length; // the core and its reaper
    for (let cycle = 0; cycle < 2; cycle++) {
      const clients = await Promise.all(Array.from({ length: 5 }, (_, i) => world.gateway(`c${i}`)));
      await Promise.all(clients.map((c, i) => c.callTool({ name: 'fx__echo', arguments: { i } })));
      expect(countProcs(world.tag, ECHO_SERVER)).toBe(1);
      for (const c of clients) await c.close();
      world.clients.length = 0;
      // Gateways exit with their client; the pooled server stays (idleSeconds 300).
      await waitFor('gateways to exit', () => world.pids().length === baseline + 1);
    }
  });
});

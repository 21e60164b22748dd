import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPD } from '../support/paths.js';
import { cmdline, waitFor } from '../support/procs.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { echoServer, profile } from '../support/profiles.js';

type ToolResult = { content: { type: string; text: string }[] };

describe('mcpdmcp without a running core', () => {
  let world: TestWorld;
  beforeAll(() => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
  });
  afterAll(async () => world.cleanup());

  it('answers initialize at once and fails a request clearly when autostart is off', async () => {
    const client = await world.gateway('lonely', ['--no-autostart', '--core-wait-ms', '500']);
    expect(client.getServerVersion()?.name).toBe('mcpd');
    await expect(client.listTools()).rejects.toThrow(/no mcpd core reachable at .*control\.sock; start one with `mcpd --config DIR/);
    expect(world.pids().some((p) => cmdline(p).includes(MCPD))).toBe(false);
  });

  it('starts a core itself and serves the session, with progress and cancellation passing through', async () => {
    const client = await world.gateway('starter');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('fx__slow');
    expect(world.pids().filter((p) => cmdline(p).includes(MCPD))).toHaveLength(1);

    const seen: number[] = [];
    const r = await client.callTool({ name: 'fx__slow', arguments: { steps: 3, ms: 10 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect((r as ToolResult).content[0]?.text).toBe('done');
    expect(seen.length).toBeGreaterThanOrEqual(1);

    // Cancel once the server reports progress: the abort travels client → gateway → core → server.
    const ac = new AbortController();
    const cancelled = client.callTool({ name: 'fx__slow', arguments: { steps: 1000, ms: 50 } }, undefined, {
      signal: ac.signal,
      onprogress: () => ac.abort('enough'),
    });
    await expect(cancelled).rejects.toThrow(/enough|abort/i);
    // The autostarted core logs beside its socket; the server's stderr line proves it saw the cancel.
    const coreLog = join(dirname(world.socket), 'mcpd.log');
    await waitFor(
      'the server to see the cancellation',
      () => existsSync(coreLog) && readFileSync(coreLog, 'utf8').includes('fixture: cancelled slow'),
    );
    const again = await client.callTool({ name: 'fx__echo', arguments: { after: 'cancel' } });
    expect(JSON.stringify(again)).toContain('cancel');
  });
});

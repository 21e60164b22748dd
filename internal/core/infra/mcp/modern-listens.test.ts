import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { JsonObject } from '../../../shared/json.js';
import { ModernListens } from './modern-listens.js';
import { FakeListenStream } from '../../../../test/support/fake-listen-stream.js';

// What the session hears when a listen stream ends and comes back, on a fake clock: the client stands in
// for SDK v2's (only `listen`); test/e2e/listen-lost.test.ts runs the real one against a 2026-07-28 server.

function harness() {
  const streams: { filter: JsonObject; stream: FakeListenStream }[] = [];
  let refuse = false;
  const client = {
    listen: vi.fn(async (filter: JsonObject) => {
      if (refuse) throw new Error('Subscription limit reached');
      const stream = new FakeListenStream();
      streams.push({ filter, stream });
      return stream;
    }),
  };
  const heard: string[] = [];
  const hooks = {
    alive: () => true,
    notify: (method: string, params: JsonObject) => heard.push(`${method} ${JSON.stringify(params)}`),
    log: (line: string) => heard.push(line),
    hearing: (on: boolean) => heard.push(`hearing ${on}`),
  };
  const listens = new ModernListens(client as unknown as ModernClient, hooks);
  return { listens, client, streams, heard, refuse: (on: boolean) => (refuse = on) };
}

const CAPS = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true } };

describe('ModernListens', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a lost list-changes stream: not hearing, every listened kind changed; back: hearing, changed again', async () => {
    const h = harness();
    await h.listens.start(CAPS);
    expect(h.streams[0]!.filter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    expect(h.heard).toEqual(['hearing true']);
    h.heard.length = 0;
    h.refuse(true);
    h.streams[0]!.stream.end('graceful');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.heard).toEqual([
      'hearing false',
      '[mcpd] subscriptions/listen for list changes ended (graceful); its lists count as changed until it is back',
      'notifications/tools/list_changed {}',
      'notifications/prompts/list_changed {}',
    ]);
    h.heard.length = 0;
    await vi.advanceTimersByTimeAsync(500);
    expect(h.heard).toEqual([]);
    h.refuse(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.heard).toEqual([
      '[mcpd] subscriptions/listen for list changes is back (after 2 attempts)',
      'hearing true',
      'notifications/tools/list_changed {}',
      'notifications/prompts/list_changed {}',
    ]);
  });

  it('a lost resource stream is re-opened and says the resource may have changed', async () => {
    const h = harness();
    await h.listens.subscribe('era://info');
    h.streams[0]!.stream.end('remote');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.streams[1]!.filter).toEqual({ resourceSubscriptions: ['era://info'] });
    expect(h.heard).toEqual([
      '[mcpd] subscriptions/listen for resource era://info ended (remote); re-listening',
      '[mcpd] subscriptions/listen for resource era://info is back (after 1 attempt)',
      'notifications/resources/updated {"uri":"era://info"}',
    ]);
  });

  it('resources/unsubscribe during the retry ends it', async () => {
    const h = harness();
    await h.listens.subscribe('era://info');
    h.refuse(true);
    h.streams[0]!.stream.end('graceful');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.client.listen).toHaveBeenCalledTimes(2);
    await h.listens.unsubscribe('era://info');
    h.refuse(false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.client.listen).toHaveBeenCalledTimes(2);
    expect(h.heard).toEqual(['[mcpd] subscriptions/listen for resource era://info ended (graceful); re-listening']);
  });

  it('stop (the session ends) ends every retry', async () => {
    const h = harness();
    await h.listens.start(CAPS);
    await h.listens.subscribe('era://info');
    h.refuse(true);
    for (const s of h.streams) s.stream.end('remote');
    await vi.advanceTimersByTimeAsync(500);
    const calls = h.client.listen.mock.calls.length;
    await h.listens.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.client.listen.mock.calls.length).toBe(calls);
  });
});

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { SessionEventStore } from './session-event-store.js';

const note = (i: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: i } });

async function replay(store: SessionEventStore, after: string): Promise<{ stream: string; sent: [string, JSONRPCMessage][] }> {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, m) => void sent.push([id, m]) });
  return { stream, sent };
}

describe('the SSE event store of an HTTP session', () => {
  it('replays what came after an event on its own stream only, priming events left out', async () => {
    const s = new SessionEventStore();
    const priming = await s.storeEvent('a', {} as JSONRPCMessage);
    const a1 = await s.storeEvent('a', note(1));
    await s.storeEvent('b', note(100));
    const a2 = await s.storeEvent('a', note(2));
    const a3 = await s.storeEvent('a', note(3));
    expect(await s.getStreamIdForEventId(a1)).toBe('a');
    expect(await replay(s, priming)).toEqual({
      stream: 'a',
      sent: [
        [a1, note(1)],
        [a2, note(2)],
        [a3, note(3)],
      ],
    });
    expect(await replay(s, a2)).toEqual({ stream: 'a', sent: [[a3, note(3)]] });
    expect(await replay(s, a3)).toEqual({ stream: 'a', sent: [] });
  });

  it('keeps only the newest events; an id outside the window or malformed is not found', async () => {
    const s = new SessionEventStore(3);
    const ids = [];
    for (let i = 1; i <= 5; i++) ids.push(await s.storeEvent('a', note(i)));
    const [first = '', , third = ''] = ids;
    expect(await s.getStreamIdForEventId(first)).toBeUndefined();
    expect((await replay(s, first)).stream).toBe('');
    expect((await replay(s, third)).sent.map(([, m]) => m)).toEqual([note(4), note(5)]);
    for (const bad of ['', 'a', 'a/', 'a/x', '/3', 'nope/3', 'a/99']) expect(await s.getStreamIdForEventId(bad), bad).toBeUndefined();
  });

  it('handles stream ids that contain the separator', async () => {
    const s = new SessionEventStore();
    const id = await s.storeEvent('x/y', note(1));
    const next = await s.storeEvent('x/y', note(2));
    expect(await s.getStreamIdForEventId(id)).toBe('x/y');
    expect(await replay(s, id)).toEqual({ stream: 'x/y', sent: [[next, note(2)]] });
  });
});

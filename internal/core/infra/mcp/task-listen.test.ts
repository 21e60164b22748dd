import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { SERVER_TASK_RELISTENED, TASKS_EXTENSION } from '../../../contract/model/tasks.js';
import type { JsonObject } from '../../../shared/json.js';
import { TaskListen } from './task-listen.js';
import { FakeListenStream } from '../../../../test/support/fake-listen-stream.js';

// The session's one stream for its server's tasks, with a client standing in for SDK v2's (its `listen`
// and the capabilities it builds each request's envelope from); test/e2e/passthrough-tasks-2026.test.ts
// runs the real one against a 2026-07-28 server.

function harness() {
  const events: string[] = [];
  const streams: FakeListenStream[] = [];
  const client = {
    _capabilities: { elicitation: {} } as JsonObject,
    listen: vi.fn(async (filter: JsonObject) => {
      const caps = JSON.stringify(client._capabilities);
      const stream = new FakeListenStream();
      const n = streams.push(stream);
      events.push(`open ${n} ${JSON.stringify(filter)} ${caps}`);
      void stream.closed.then((why) => events.push(`closed ${n} ${why}`));
      return stream;
    }),
  };
  const hooks = {
    alive: () => true,
    notify: (method: string, params: JsonObject) => events.push(`${method} ${JSON.stringify(params)}`),
    log: () => {},
  };
  const listen = new TaskListen(client as unknown as ModernClient, hooks, 1000);
  return { listen, client, streams, events };
}

const WITH_TASKS = JSON.stringify({ elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } });

describe('TaskListen', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('opens the new list before closing the old, with the tasks extension on that listen only', async () => {
    const h = harness();
    expect(await h.listen.name(['a'])).toEqual({ taskIds: ['a'] });
    expect(await h.listen.name(['a', 'b', 'a'])).toEqual({ taskIds: ['a', 'b'] });
    expect(await h.listen.name([])).toEqual({ taskIds: [] });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.events).toEqual([
      `open 1 {"taskIds":["a"]} ${WITH_TASKS}`,
      `open 2 {"taskIds":["a","b"]} ${WITH_TASKS}`,
      'closed 1 local',
      'closed 2 local',
    ]);
    // Other requests keep the client's own capabilities: a plain call must not become a task.
    expect(h.client._capabilities).toEqual({ elicitation: {} });
  });

  it('a stream the server ends is opened again, and the core told its tasks may have moved unheard', async () => {
    const h = harness();
    await h.listen.name(['a', 'b']);
    h.streams[0]!.end('graceful');
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.events.slice(1)).toEqual([
      'closed 1 graceful',
      `open 2 {"taskIds":["a","b"]} ${WITH_TASKS}`,
      `${SERVER_TASK_RELISTENED} {"taskIds":["a","b"]}`,
    ]);
    await h.listen.stop();
    h.streams[1]!.end('remote');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.streams).toHaveLength(2);
  });
});

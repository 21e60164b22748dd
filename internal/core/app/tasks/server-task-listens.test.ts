import { describe, expect, it } from 'vitest';
import { SERVER_TASK_LISTEN } from '../../../contract/model/tasks.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { ModernPassedTask } from './passed-task-2026.js';
import { ServerTaskListens } from './server-task-listens.js';

/** A pool whose keys `k*` sit on instance `i1` and `m*` on `i2`; each listen waits until `answer` lets it go. */
function pools() {
  const sent: { key: string; taskIds: string[] }[] = [];
  const waiting: ((fail?: Error) => void)[] = [];
  return {
    sent,
    /** Lets the oldest listen in flight be acknowledged (or fail). */
    answer: async (fail?: Error) => {
      await expect.poll(() => waiting.length).toBeGreaterThan(0);
      waiting.shift()!(fail);
    },
    pinnedInstance: (_fp: string, key: string) => (key.startsWith('k') ? 'i1' : 'i2'),
    pinnedRequest: (_fp: string, key: string, method: string, params: JsonObject): Promise<JsonObject> => {
      expect(method).toBe(SERVER_TASK_LISTEN);
      sent.push({ key, taskIds: params.taskIds as string[] });
      return new Promise((resolve, reject) => waiting.push((fail) => (fail ? reject(fail) : resolve({}))));
    },
  };
}

function task(key: string, serverTaskId: string) {
  const t = { init: { fingerprint: 'fp', key, serverTaskId }, refreshed: 0, refresh: async () => void t.refreshed++ };
  return t as typeof t & ModernPassedTask;
}

const quiet = () => {};

describe('ServerTaskListens', () => {
  it('names every live task of an instance on one stream, asks each new one once, and closes it with the last', async () => {
    const p = pools();
    const l = new ServerTaskListens(p, quiet);
    const a = task('k1', 'a');
    const b = task('k2', 'b');
    l.add(a);
    l.add(b);
    await p.answer();
    // b came while a's list was out: the next list names both.
    await p.answer();
    expect(p.sent.map((s) => s.taskIds)).toEqual([['a'], ['a', 'b']]);
    expect([a.refreshed, b.refreshed]).toEqual([1, 1]);
    const removedA = l.remove(a);
    await p.answer();
    await removedA;
    const removedB = l.remove(b);
    await p.answer();
    await removedB;
    // The last list is empty, sent with a key still pinned to the instance (the ended task's).
    expect(p.sent.slice(2)).toEqual([
      { key: 'k2', taskIds: ['b'] },
      { key: 'k2', taskIds: [] },
    ]);
    expect([a.refreshed, b.refreshed]).toEqual([1, 1]);
  });

  it('keeps one stream per instance, and a gone instance ends the sync without a retry', async () => {
    const p = pools();
    const logged: string[] = [];
    const l = new ServerTaskListens(p, (_level, msg) => void logged.push(msg));
    const a = task('k1', 'a');
    const m = task('m1', 'a');
    l.add(a);
    l.add(m);
    await p.answer();
    await p.answer(new McpdError('UNAVAILABLE', 'gone'));
    expect(p.sent).toEqual([
      { key: 'k1', taskIds: ['a'] },
      { key: 'm1', taskIds: ['a'] },
    ]);
    // The refused one is not asked (it moves when polled, or fails with its instance), and is not logged.
    expect([a.refreshed, m.refreshed]).toEqual([1, 0]);
    expect(logged).toEqual([]);
    l.relistened('fp', 'i1');
    await expect.poll(() => a.refreshed).toBe(2);
  });
});

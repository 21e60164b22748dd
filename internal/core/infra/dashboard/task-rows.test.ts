import { describe, expect, it } from 'vitest';
import type { TasksApi } from '../../../contract/control/control-areas.js';
import type { TaskRow } from '../../../contract/dashboard/dashboard-events.js';
import type { CallerTask, TaskView } from '../../../contract/model/tasks.js';
import { taskRow, watchTaskRows } from './task-rows.js';

const view = (taskId: string, over: Partial<TaskView> = {}): TaskView => ({
  taskId,
  status: 'working',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUpdatedAt: '2026-01-01T00:00:00.000Z',
  ttlMs: 3_600_000,
  pollIntervalMs: 500,
  tool: 'slow',
  ...over,
});

/** A task host as the dashboard sees it: its list is `all`, and `change()` tells the listeners. */
function fakeTasks(all: CallerTask[]) {
  const listeners = new Set<() => void>();
  const api = {
    listAll: () => all,
    onChange: (fn: () => void) => (listeners.add(fn), () => listeners.delete(fn)),
  } as Partial<TasksApi> as TasksApi;
  return { api, listeners, change: () => listeners.forEach((fn) => fn()) };
}

/** Collects what the watch sends; `next()` resolves with the following send. */
function recorder() {
  const sent: TaskRow[][] = [];
  let wake: ((rows: TaskRow[]) => void) | undefined;
  return {
    sent,
    send: (rows: TaskRow[]) => {
      sent.push(rows);
      wake?.(rows);
    },
    next: () => new Promise<TaskRow[]>((r) => (wake = r)),
  };
}

describe('the Tasks page rows', () => {
  it('carry the envelope and the number of waiting input requests, never the result, error or requests', () => {
    const row = taskRow({
      caller: 'alice',
      task: view('t1', {
        status: 'input_required',
        server: 'cf',
        result: { content: [] },
        inputRequests: { a: { method: 'elicitation/create' }, b: { method: 'sampling/createMessage' } },
      }),
    });
    expect(row).toEqual({
      caller: 'alice',
      taskId: 't1',
      status: 'input_required',
      tool: 'slow',
      server: 'cf',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUpdatedAt: '2026-01-01T00:00:00.000Z',
      ttlMs: 3_600_000,
      inputs: 2,
    });
  });

  it("are sent at once, one caller's or all, then once per burst of changes, and not again when nothing shows a change", async () => {
    const all: CallerTask[] = [
      { caller: 'alice', task: view('a1') },
      { caller: 'bob', task: view('b1') },
    ];
    const host = fakeTasks(all);
    const mine = recorder();
    const every = recorder();
    const stopMine = watchTaskRows(host.api, 'alice', mine.send);
    const stopEvery = watchTaskRows(host.api, undefined, every.send);
    expect(mine.sent.map((rows) => rows.map((r) => r.taskId))).toEqual([['a1']]);
    expect(every.sent.map((rows) => rows.map((r) => r.taskId))).toEqual([['a1', 'b1']]);

    const burst = every.next();
    for (const status of ['input_required', 'working', 'completed'] as const) {
      all[1] = { caller: 'bob', task: view('b1', { status }) };
      host.change();
    }
    expect((await burst).map((r) => r.status)).toEqual(['working', 'completed']);
    expect(every.sent).toHaveLength(2);

    // bob's changes altered no row of alice's watch, whose list was not sent again (its timer ran first).
    expect(mine.sent).toHaveLength(1);
    const later = every.next();
    all.unshift({ caller: 'alice', task: view('a2') });
    host.change();
    expect((await later).map((r) => r.taskId)).toEqual(['a2', 'a1', 'b1']);
    expect(mine.sent.map((rows) => rows.map((r) => r.taskId))).toEqual([['a1'], ['a2', 'a1']]);

    stopMine();
    stopEvery();
    expect(host.listeners.size).toBe(0);
  });
});

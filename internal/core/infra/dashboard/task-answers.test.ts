import { describe, expect, it } from 'vitest';
import type { TasksApi } from '../../../contract/control/control-areas.js';
import type { TaskView } from '../../../contract/model/tasks.js';
import type { JsonObject } from '../../../shared/json.js';
import { Args } from './socket-args.js';
import { answerTask } from './task-answers.js';

const schema = { type: 'object', properties: { confirm: { type: 'string' } }, required: ['confirm'] };

/** A caller's task waiting on one elicitation (`confirm`) and one roots request; the answers given are recorded. */
function tasksWaiting() {
  const updates: JsonObject[] = [];
  const view: TaskView = {
    taskId: 't1',
    status: 'input_required',
    createdAt: '',
    lastUpdatedAt: '',
    ttlMs: 1,
    pollIntervalMs: 1,
    inputRequests: {
      confirm: { method: 'elicitation/create', params: { message: 'Delete?', requestedSchema: schema } },
      roots: { method: 'roots/list', params: {} },
    },
  };
  const tasks = {
    get: (caller: string, id: string) => {
      if (caller !== 'alice' || id !== 't1') throw new Error(`unknown task id "${id}" for caller "${caller}"`);
      return view;
    },
    update: (_caller: string, _id: string, responses: JsonObject) => void updates.push(responses),
  } as unknown as TasksApi;
  const answer = (a: JsonObject) => answerTask(tasks, new Args('answer-task', { caller: 'alice', taskId: 't1', ...a }));
  return { updates, answer, tasks };
}

describe('answer-task (the Tasks page answers an elicitation as the task caller)', () => {
  it("answers with tasks/update once the content fits the server's schema; decline needs none", async () => {
    const { updates, answer } = tasksWaiting();
    await expect(answer({ key: 'confirm', action: 'accept', content: {} })).rejects.toThrow(/does not fit the server's requestedSchema/);
    await answer({ key: 'confirm', action: 'accept', content: { confirm: 'yes' } });
    await answer({ key: 'confirm', action: 'decline' });
    expect(updates).toEqual([{ confirm: { action: 'accept', content: { confirm: 'yes' } } }, { confirm: { action: 'decline' } }]);
  });

  it('refuses, saying why: an input not waiting, one that is no elicitation, a bad action, another caller', async () => {
    const { updates, answer, tasks } = tasksWaiting();
    await expect(answer({ key: 'gone', action: 'decline' })).rejects.toThrow(/waits for no input "gone"/);
    await expect(answer({ key: 'roots', action: 'accept' })).rejects.toThrow(/elicitation only; "roots" is roots\/list/);
    await expect(answer({ key: 'confirm', action: 'maybe' })).rejects.toThrow(/"action" must be accept, decline or cancel/);
    const bob = new Args('answer-task', { caller: 'bob', taskId: 't1', key: 'confirm', action: 'decline' });
    await expect(answerTask(tasks, bob)).rejects.toThrow(/unknown task id/);
    expect(updates).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createdTaskOf, serverTaskEra, serverTaskOf } from './server-tasks.js';

describe('what a server says of its own tasks', () => {
  it('takes a server for a 2025-11-25 task server only when it declares tasks for tools/call', () => {
    expect(serverTaskEra({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } })).toBe('2025');
    expect(serverTaskEra({ tasks: { list: {}, cancel: {} } })).toBeUndefined();
    expect(serverTaskEra({ tasks: { requests: { sampling: { createMessage: {} } } } })).toBeUndefined();
    expect(serverTaskEra({ extensions: { 'io.modelcontextprotocol/tasks': {} } })).toBe('2026');
    expect(serverTaskEra({ extensions: { 'io.modelcontextprotocol/skills': {} } })).toBeUndefined();
    expect(serverTaskEra(undefined)).toBeUndefined();
  });

  it("reads a CreateTaskResult's task and a tasks/get answer; anything else is no task", () => {
    const task = { taskId: 't-1', status: 'working', statusMessage: 'Gathering', ttl: 60_000, pollInterval: 1000, createdAt: 'x' };
    expect(createdTaskOf({ task }, '2025')).toEqual({ taskId: 't-1', status: 'working', statusMessage: 'Gathering' });
    expect(serverTaskOf({ taskId: 't-1', status: 'input_required' })).toEqual({ taskId: 't-1', status: 'input_required' });
    expect(createdTaskOf({ content: [{ type: 'text', text: 'plain' }] }, '2025')).toBeUndefined();
    expect(serverTaskOf({ taskId: '', status: 'working' })).toBeUndefined();
    expect(serverTaskOf({ taskId: 't', status: 'paused' })).toBeUndefined();
    expect(serverTaskOf(['t'])).toBeUndefined();
    const flat = { resultType: 'task', taskId: 's-1', status: 'working', createdAt: 'x', ttlMs: 60_000 };
    expect(createdTaskOf(flat, '2026')).toEqual({ taskId: 's-1', status: 'working' });
    expect(createdTaskOf({ ...flat, resultType: 'complete' }, '2026')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { ClientChannel, ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type { ControlApi } from '../../../contract/control/control.js';
import type { CallDone } from '../../../contract/model/downstream.js';
import type { TaskView } from '../../../contract/model/tasks.js';
import type { JsonObject } from '../../../shared/json.js';
import { TaskHost } from './task-host.js';

/** The host with its call runner and client router recorded: each started call's ending and its channel. */
function world() {
  const channels = new Map<string, ClientChannel>();
  const clientRequests: ClientRequestsApi = {
    attach: (session, channel) => (channels.set(session.id, channel), () => channels.delete(session.id)),
    setCapabilities: () => undefined,
    rootsChanged: () => undefined,
  };
  const calls: { routingKey?: string; done: CallDone; cancelled?: Error }[] = [];
  const run: ControlApi['toolCall'] = (_caller, _name, _args, opts, done) => {
    const call: (typeof calls)[number] = { routingKey: opts.routingKey, done };
    calls.push(call);
    return { cancel: (e) => ((call.cancelled = e), done.error(e)) };
  };
  const host = new TaskHost({ findTool: () => undefined, loadTools: async () => undefined, clientRequests, log: () => undefined });
  /** The server of the call's routing key asks its client. */
  const ask = (key: string | undefined, key2: string) =>
    channels.get(key ?? '')!.request('elicitation/create', { message: 'name?', _meta: { 'mcpd/inputKey': key2 } }, { timeoutMs: 60_000 });
  return { host, run, calls, ask, channels };
}

/** A client that answers when told to: its questions are recorded. */
function sessionClient() {
  const asked: JsonObject[] = [];
  const answers: ((r: JsonObject) => void)[] = [];
  const channel: ClientChannel = {
    request: (method, params) => (asked.push({ method, params }), new Promise((resolve) => answers.push(resolve))),
  };
  return { channel, asked, answer: (r: JsonObject) => answers.shift()!(r) };
}

function outcomes() {
  const seen: { task?: TaskView; result?: JsonObject; error?: Error } = {};
  return {
    seen,
    outcome: {
      task: (v: TaskView) => (seen.task = v),
      result: (r: JsonObject) => (seen.result = r),
      error: (e: Error) => (seen.error = e),
    },
  };
}

describe('a task whose tool asks before it exists (startAfterAnswer)', () => {
  it('asks the creating client first; its answer makes the task, which takes the later questions and the result', async () => {
    const { host, run, calls, ask } = world();
    const client = sessionClient();
    const { seen, outcome } = outcomes();
    host.startAfterAnswer('alice', 'tool', {}, {}, run, client.channel, outcome);
    const [call] = calls;
    expect(call?.routingKey).toMatch(/^task:/);

    const first = ask(call?.routingKey, 'user_name');
    expect(client.asked).toHaveLength(1);
    expect(host.list('alice')).toEqual([]);
    expect(seen.task).toBeUndefined();
    client.answer({ action: 'accept', content: { name: 'Alice' } });
    expect(await first).toEqual({ action: 'accept', content: { name: 'Alice' } });

    const id = seen.task?.taskId ?? '';
    expect(host.list('alice').map((t) => t.taskId)).toEqual([id]);
    const second = ask(call?.routingKey, 'confirm');
    expect(client.asked).toHaveLength(1);
    expect(host.get('alice', id)).toMatchObject({ status: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    host.update('alice', id, { confirm: { action: 'accept' } });
    await second;
    call?.done.result({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
    expect(host.get('alice', id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'Hello, Alice!' }] } });
    expect(seen.result).toBeUndefined();
  });

  it('a call that ends before any answer is no task: its result (or error) is the outcome', () => {
    const { host, run, calls, channels } = world();
    const { seen, outcome } = outcomes();
    host.startAfterAnswer('alice', 'tool', {}, {}, run, sessionClient().channel, outcome);
    calls[0]?.done.result({ content: [] });
    expect(seen).toEqual({ result: { content: [] } });
    expect(host.list('alice')).toEqual([]);
    expect(channels.size).toBe(0);

    const cancelled = host.startAfterAnswer('alice', 'tool', {}, {}, run, sessionClient().channel, outcome);
    cancelled.cancel(new Error('the client gave up'));
    expect(calls[1]?.cancelled?.message).toBe('the client gave up');
    expect(seen.error?.message).toBe('the client gave up');
    expect(host.list('alice')).toEqual([]);
  });
});

describe('watching a task (TasksApi.watch)', () => {
  it('tells its present state, then each change, to its caller only, until unwatched', async () => {
    const { host, run, calls, ask } = world();
    const view = (await host.start('alice', 'tool', {}, {}, run)) as TaskView;
    expect(() => host.watch('bob', view.taskId, () => undefined)).toThrow(/unknown task id/);

    const seen: TaskView[] = [];
    host.watch('alice', view.taskId, (v) => seen.push(v));
    expect(seen.map((v) => v.status)).toEqual(['working']);
    void ask(calls[0]?.routingKey, 'pick');
    expect(seen.at(-1)).toMatchObject({ status: 'input_required', inputRequests: { pick: { method: 'elicitation/create' } } });
    host.update('alice', view.taskId, { pick: { action: 'accept' } });
    expect(seen.at(-1)?.status).toBe('working');
    calls[0]?.done.result({ content: [{ type: 'text', text: 'done' }] });
    expect(seen.at(-1)).toMatchObject({ status: 'completed', result: { content: [{ text: 'done' }] } });

    const other = (await host.start('alice', 'tool', {}, {}, run)) as TaskView;
    const heard: TaskView[] = [];
    const stop = host.watch('alice', other.taskId, (v) => heard.push(v));
    stop();
    calls[1]?.done.result({ content: [] });
    expect(heard.map((v) => v.status)).toEqual(['working']);
    expect(host.get('alice', other.taskId)).toMatchObject({ status: 'completed' });
  });
});

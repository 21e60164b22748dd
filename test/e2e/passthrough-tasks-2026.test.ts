import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorld } from '../support/core-process.js';
import type { HttpGatewayProc } from '../support/http-gateway.js';
import { FIXTURES } from '../support/paths.js';
import { cmdline, pidsWithTag, waitFor } from '../support/procs.js';
import { server } from '../support/profiles.js';
import { listenTasks, rpc, taskOf, untilTask, type Json, type Note } from '../support/tasks-2026.js';
import { stopTwoCallers, twoCallers, type TwoCallers } from '../support/two-callers.js';

const FIXTURE = `${FIXTURES}/servers/tasks2026.mjs`;

function until(gw: HttpGatewayProc, taskId: string, what: string, done: (t: Json) => boolean): Promise<Json> {
  return untilTask(gw, taskId, what, done, 60_000);
}

const statusIs = (s: string) => (t: Json) => t.status === s;

async function startTask(gw: HttpGatewayProc, args: Json): Promise<string> {
  const created = await rpc(gw, 'tools/call', { name: 'job', arguments: args });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
  return created.result?.taskId as string;
}

/** What a fixture tool answers as JSON text (a plain call on the one instance). */
async function fixtureSays<T>(gw: HttpGatewayProc, tool: string, args: Json = {}): Promise<T> {
  const r = await rpc(gw, 'tools/call', { name: tool, arguments: args });
  const text = ((r.result?.content as Json[] | undefined)?.[0]?.text ?? '') as string;
  if (!text) throw new Error(`the fixture's ${tool} tool answered ${JSON.stringify(r)}`);
  return JSON.parse(text) as T;
}

/** The tasks/* requests the fixture server received. */
const receivedBy = (gw: HttpGatewayProc) => fixtureSays<Json[]>(gw, 'received');
/** The topics of the tasks the server's open subscriptions/listen streams name. */
const listenedFor = (gw: HttpGatewayProc) => fixtureSays<string[]>(gw, 'listening');

/**
 * Tasks of a 2026-07-28 server that runs them itself (SEP-2663's extension; the hand-written fixture
 * tasks2026.mjs, whose task moves one step per tasks/get it receives), passed through `mcpdmcp --http`.
 */
describe('tasks of a 2026-07-28 server passed through to 2026-07-28 clients', () => {
  let w: TwoCallers;
  let world: TestWorld;
  let alice: HttpGatewayProc;
  let bob: HttpGatewayProc;

  beforeAll(async () => {
    w = await twoCallers(server('t26', [process.execPath, FIXTURE], { maxInstances: 1 }));
    ({ world, alice, bob } = w);
  });
  afterAll(() => stopTwoCallers(w));

  it("runs as the server's task (its tasks/get drive it) under an id of the core's", async () => {
    const id = await startTask(alice, { topic: 'tides' });
    expect(id).toMatch(/^[\w-]{22}$/);
    const done = await until(alice, id, 'completed', statusIs('completed'));
    expect(done).toMatchObject({ resultType: 'complete', taskId: id, result: { content: [{ type: 'text' }] } });
    // The server made a task (a plain call would answer "plain tides") and the polls reached it.
    expect(((done.result as Json).content as Json[])[0]?.text).toBe('task on tides, after 2 tasks/get');
    expect(JSON.stringify(done)).not.toContain('srv-');
  });

  it("passes the server's inputRequests on, answered by tasks/update; another caller never sees the task", async () => {
    const id = await startTask(alice, { topic: 'python', ask: true });
    const waiting = await until(alice, id, 'input_required with a request', (t) => t.inputRequests !== undefined);
    expect(waiting.status).toBe('input_required');
    expect(waiting.inputRequests).toEqual({
      choice: expect.objectContaining({ method: 'elicitation/create', params: expect.objectContaining({ message: 'which python?' }) }),
    });

    for (const method of ['tasks/get', 'tasks/cancel']) expect((await rpc(bob, method, { taskId: id })).error?.code).toBe(-32602);

    const ack = await rpc(alice, 'tasks/update', {
      taskId: id,
      inputResponses: { choice: { action: 'accept', content: { pick: 'programming' } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const done = await until(alice, id, 'completed', statusIs('completed'));
    expect(JSON.stringify(done.result)).toContain('python (programming)');
  });

  it('tasks/cancel reaches the server as its tasks/cancel of that task; the task is cancelled and stays so', async () => {
    const id = await startTask(alice, { topic: 'moss', hold: true });
    expect((await rpc(alice, 'tasks/cancel', { taskId: id })).result).toEqual({ resultType: 'complete' });
    expect(await taskOf(alice, id)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by its caller (tasks/cancel)' });
    // The core acknowledged only after its server did, so the server's record holds the cancel by now.
    expect(await receivedBy(alice)).toContainEqual({ method: 'tasks/cancel', topic: 'moss' });
  });

  it("the server's own notifications/tasks move the task: its caller's listen stream hears the end, and nothing polls", async () => {
    const id = await startTask(alice, { topic: 'kelp', push: true });
    // The core listens to the server for the task it holds, whether or not a client watches it.
    await waitFor('the core to listen to the server for the kelp task', async () => (await listenedFor(alice)).includes('kelp'), 50_000);
    let advanced: Promise<unknown> | undefined;
    const forTask = (ns: Note[]) => ns.filter((n) => n.method === 'notifications/tasks');
    const notes = await listenTasks(alice, 'watch-kelp', [id], (ns) => {
      // Once the stream told the task's present state, the server moves it, told only on its own stream.
      if (!advanced && forTask(ns).length > 0) advanced = rpc(alice, 'tools/call', { name: 'advance', arguments: { topic: 'kelp' } });
      return forTask(ns).some((n) => n.params.status === 'completed');
    });
    expect((await advanced) as Json).toMatchObject({ result: { content: [{ text: 'advanced 1' }] } });
    const [ack, first, ...changes] = notes;
    expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [id] } } });
    expect(first).toMatchObject({ method: 'notifications/tasks', params: { taskId: id, status: 'working' } });
    for (const n of changes) expect(n).toMatchObject({ method: 'notifications/tasks', params: { taskId: id } });
    expect(changes.map((n) => n.params.statusMessage)).toContain('researching kelp...');
    const done = changes.at(-1)!.params;
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'task on kelp, pushed' }] } });
    expect(JSON.stringify(notes)).not.toContain('srv-');
    // No client polled; the core asked once at most, when its stream was acknowledged (a push task does not move on tasks/get).
    const gets = (await receivedBy(alice)).filter((r) => r.method === 'tasks/get' && r.topic === 'kelp');
    expect(gets.length).toBeLessThanOrEqual(1);
    // No live task is left on the instance: the core closes its stream.
    await waitFor('the core to stop listening for the kelp task', async () => !(await listenedFor(alice)).includes('kelp'), 50_000);
  }, 180_000);

  it('the instance that held the task ending fails it with a clear error', async () => {
    const id = await startTask(alice, { topic: 'fog', hold: true });
    await until(alice, id, 'working', statusIs('working'));
    const pids = pidsWithTag(world.tag).filter((p) => cmdline(p).includes(FIXTURE));
    expect(pids).toHaveLength(1);
    process.kill(pids[0]!, 'SIGKILL');
    const failed = await until(alice, id, 'failed', statusIs('failed'));
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringContaining('that ran the task ended') });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorld } from '../support/core-process.js';
import type { HttpGatewayProc } from '../support/http-gateway.js';
import { EVERYTHING } from '../support/paths.js';
import { cmdline, pidsWithTag } from '../support/procs.js';
import { everythingServer } from '../support/profiles.js';
import { listenTasks, rpc, taskOf, TASKS, untilTask, V, type Json } from '../support/tasks-2026.js';
import { stopTwoCallers, twoCallers, type TwoCallers } from '../support/two-callers.js';

const TOOL = 'simulate-research-query';

/** Polls tasks/get, as a client does (each poll asks the server through the core), until `done` holds. */
function until(gw: HttpGatewayProc, taskId: string, what: string, done: (t: Json) => boolean): Promise<Json> {
  return untilTask(gw, taskId, what, done, 60_000);
}

const statusIs = (s: string) => (t: Json) => t.status === s;

async function startTask(gw: HttpGatewayProc, args: Json): Promise<string> {
  const created = await rpc(gw, 'tools/call', { name: TOOL, arguments: args });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
  return created.result?.taskId as string;
}

/** The running server-everything processes of the world. */
function everythingPids(world: TestWorld): number[] {
  return pidsWithTag(world.tag).filter((p) => cmdline(p).includes(EVERYTHING));
}

/**
 * Tasks of a server that implements the 2025-11-25 experimental tasks itself (server-everything's
 * simulate-research-query, `taskSupport: "required"`), passed through `mcpdmcp --http` to 2026-07-28 clients.
 */
describe('tasks of a 2025-11-25 server passed through to 2026-07-28 clients', () => {
  let w: TwoCallers;
  let world: TestWorld;
  let alice: HttpGatewayProc;
  let bob: HttpGatewayProc;

  beforeAll(async () => {
    w = await twoCallers(everythingServer('ev', { maxInstances: 1 }));
    ({ world, alice, bob } = w);
  });
  afterAll(() => stopTwoCallers(w));

  it("runs as the server's task: the server's status messages, then its result, under an id of the core's", async () => {
    const id = await startTask(alice, { topic: 'tides' });
    expect(id).toMatch(/^[\w-]{22}$/);
    const working = await until(alice, id, 'reporting a stage', (t) => typeof t.statusMessage === 'string' || t.status === 'completed');
    if (working.status !== 'completed') expect(working.statusMessage).toMatch(/\.\.\.$/);
    const done = await until(alice, id, 'completed', statusIs('completed'));
    expect(done).toMatchObject({ resultType: 'complete', taskId: id, result: { content: [{ type: 'text' }] } });
    const text = ((done.result as Json).content as Json[])[0]?.text as string;
    expect(text).toContain('tides');
    // The server's related-task key is its own id: the client is never told it.
    expect(JSON.stringify(done)).not.toContain('io.modelcontextprotocol/related-task');
  });

  it("pushes the server's status notifications to its caller's listen stream, under the core's id, with no tasks/get", async () => {
    const id = await startTask(alice, { topic: 'tides' });
    // Nothing polls: the core hears of the task's stages only from the server's notifications/tasks/status.
    const notes = await listenTasks(alice, 'watch-1', [id], (ns) => ns.some((n) => n.params.status === 'completed'));
    const [ack, ...pushed] = notes;
    expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [id] } } });
    for (const n of pushed) {
      expect(n).toMatchObject({ method: 'notifications/tasks', params: { taskId: id } });
      expect((n.params._meta as Json)['io.modelcontextprotocol/subscriptionId']).toBe('watch-1');
    }
    // Stages after the first are announced only by the server's notifications (each a second apart).
    const messages = pushed.map((n) => n.params.statusMessage);
    expect(messages).toContain('Analyzing content...');
    expect(messages).toContain('Generating report...');
    const done = pushed.at(-1)!.params;
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text' }] } });
    expect(JSON.stringify(done.result)).toContain('tides');
    expect(JSON.stringify(notes)).not.toContain('io.modelcontextprotocol/related-task');
  });

  it("another caller's listen stream is not given the task; one without the tasks extension is refused (-32021)", async () => {
    const id = await startTask(alice, { topic: 'reefs' });
    const [ack] = await listenTasks(bob, 'watch-2', [id], (ns) => ns.length >= 1);
    expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [] } } });
    const plainMeta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
    const refused = await rpc(alice, 'subscriptions/listen', { notifications: { taskIds: [id] } }, plainMeta);
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    await until(alice, id, 'completed', statusIs('completed'));
  });

  it("passes the server's input request on as inputRequests, answered by tasks/update; another caller never sees the task", async () => {
    const id = await startTask(alice, { topic: 'python', ambiguous: true });
    const waiting = await until(alice, id, 'input_required with a request', (t) => t.inputRequests !== undefined);
    expect(waiting.status).toBe('input_required');
    const requests = Object.entries(waiting.inputRequests as Record<string, Json>);
    expect(requests).toHaveLength(1);
    const [key, request] = requests[0]!;
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: expect.stringContaining('python') } });

    for (const method of ['tasks/get', 'tasks/cancel']) expect((await rpc(bob, method, { taskId: id })).error?.code).toBe(-32602);

    const ack = await rpc(alice, 'tasks/update', {
      taskId: id,
      inputResponses: { [key]: { action: 'accept', content: { interpretation: 'programming' } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const done = await until(alice, id, 'completed', statusIs('completed'));
    expect(JSON.stringify(done.result)).toContain('programming');
  });

  it('tasks/cancel reaches the server: the task is cancelled and stays so', async () => {
    const id = await startTask(alice, { topic: 'moss' });
    expect((await rpc(alice, 'tasks/cancel', { taskId: id })).result).toEqual({ resultType: 'complete' });
    expect(await taskOf(alice, id)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by its caller (tasks/cancel)' });
    expect((await rpc(alice, 'tasks/cancel', { taskId: id })).result).toEqual({ resultType: 'complete' });
  });

  it('the instance that held the task ending fails it with a clear error; a new call gets a new instance', async () => {
    const id = await startTask(alice, { topic: 'fog', ambiguous: true });
    await until(alice, id, 'input_required with a request', (t) => t.inputRequests !== undefined);
    const pids = everythingPids(world);
    expect(pids).toHaveLength(1);
    process.kill(pids[0]!, 'SIGKILL');
    const failed = await until(alice, id, 'failed', statusIs('failed'));
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringContaining('that ran the task ended') });

    const next = await startTask(alice, { topic: 'rain' });
    expect(await until(alice, next, 'completed', statusIs('completed'))).toMatchObject({ result: { content: [{ type: 'text' }] } });
  });
});

import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { profile, server } from '../support/profiles.js';
import { runCtl } from '../support/oauth-sign-in.js';
import { listenTasks, rpc, taskOf, TASKS, untilTask, V, WITH_TASKS, type Answer, type Json } from '../support/tasks-2026.js';

const WITHOUT_TASKS = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** Polls tasks/get until the task is in `status`. */
function until(gw: HttpGatewayProc, taskId: string, status: string): Promise<Json> {
  return untilTask(gw, taskId, status, (t) => t.status === status, 20_000);
}

/**
 * Tasks the core hosts for a classic (2025-11-25) server's tools: the conformance fixture's task tools and
 * a plain tool a profile's `taskTools` marks, through `mcpdmcp --http`, with two callers and a gateway restart.
 */
describe('hosted tasks (SEP-2663) for a classic server', () => {
  let world: TestWorld;
  let alice: HttpGatewayProc;
  let bob: HttpGatewayProc;
  let core: ChildProcess;

  beforeAll(async () => {
    // One instance, one call at a time: a call left running downstream would hold the only slot.
    const fixture = server('cf', [process.execPath, `${FIXTURES}/servers/conformance.mjs`], {
      maxConcurrent: 1,
      maxInstances: 1,
      taskTools: '["test_simple_text"]',
    });
    world = new TestWorld({
      'profiles/default.yaml': `namespace: { mode: never }\n${profile(fixture)}`,
      'callers.yaml': 'callers: {}\n',
      // A call that found the slot taken fails soon instead of waiting out the default.
      'runtime.yaml': 'metricsAddress: ""\npoolWaitSeconds: 5\n',
    });
    core = await world.startCore();
    [alice, bob] = await Promise.all([startWorldHttpGateway(world, 'alice'), startWorldHttpGateway(world, 'bob')]);
  });
  afterAll(async () => {
    for (const gw of [alice, bob]) if (gw) await stopProc(gw.proc);
    await world.cleanup();
  });

  it('declares the extension, and a task-supporting tool becomes a task only for a client that negotiated it', async () => {
    const d = await rpc(alice, 'server/discover', {});
    expect((d.result?.capabilities as Json).extensions).toMatchObject({ [TASKS]: {} });

    const plain = await rpc(alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, WITHOUT_TASKS);
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'computed  after 0s' }] });

    const required = await rpc(alice, 'tools/call', { name: 'failing_job', arguments: {} }, WITHOUT_TASKS);
    expect([required.status, required.error?.code]).toEqual([400, -32021]);
    expect(required.error?.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });

    const gated = await rpc(alice, 'tasks/get', { taskId: 'x' }, WITHOUT_TASKS);
    expect(gated.error?.code).toBe(-32021);
  });

  it('keeps status and result: a tool error is completed with isError, a server error fails the task', async () => {
    const created = await rpc(alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'a' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000 });
    const id = created.result?.taskId as string;
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(await until(alice, id, 'completed')).toMatchObject({
      resultType: 'complete',
      result: { content: [{ type: 'text', text: 'computed a after 0s' }] },
    });

    const failing = (await rpc(alice, 'tools/call', { name: 'failing_job', arguments: {} })).result?.taskId as string;
    expect((await until(alice, failing, 'completed')).result).toMatchObject({ isError: true });

    const broken = (await rpc(alice, 'tools/call', { name: 'protocol_error_job', arguments: {} })).result?.taskId as string;
    const failed = await until(alice, broken, 'failed');
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringContaining('protocol_error_job fails on purpose') });
    expect(failed.result).toBeUndefined();
  });

  it('marks the tools a profile names in taskTools, and hosts their tasks', async () => {
    const list = await rpc(alice, 'tools/list', {});
    const tools = list.result?.tools as Json[];
    expect(tools.find((t) => t.name === 'test_simple_text')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((t) => t.name === 'greet')?.execution).toBeUndefined();
    const id = (await rpc(alice, 'tools/call', { name: 'test_simple_text', arguments: {} })).result?.taskId as string;
    expect((await until(alice, id, 'completed')).result).toMatchObject({
      content: [{ text: 'This is a simple text response for testing.' }],
    });
  });

  it('a task waiting for input survives its gateway: the same caller answers it from a new gateway, another caller never sees it', async () => {
    const id = (await rpc(alice, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'f.txt' } })).result?.taskId as string;
    const waiting = await until(alice, id, 'input_required');
    expect(waiting.inputRequests).toEqual({
      confirm: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Delete f.txt?' }) },
    });

    await stopProc(alice.proc);
    alice = await startWorldHttpGateway(world, 'alice');

    for (const method of ['tasks/get', 'tasks/cancel']) {
      const other = await rpc(bob, method, { taskId: id });
      expect([method, other.error?.code]).toEqual([method, -32602]);
    }
    expect((await rpc(bob, 'tasks/update', { taskId: id, inputResponses: { confirm: { action: 'accept' } } })).error?.code).toBe(-32602);

    expect((await taskOf(alice, id)).status).toBe('input_required');
    const ack = await rpc(alice, 'tasks/update', {
      taskId: id,
      inputResponses: { confirm: { action: 'accept', content: { confirm: 'yes' } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete' });
    expect((await until(alice, id, 'completed')).result).toMatchObject({ content: [{ text: 'deleted f.txt' }] });
  });

  it('a tool that asks before its task (mcpd/askBeforeTask): the question is MRTR on the call, the retry that answers it makes the task', async () => {
    const first = await rpc(alice, 'tools/call', { name: 'test_tool_with_task', arguments: {} });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create', params: expect.objectContaining({ message: 'What is your name?' }) } },
      requestState: expect.any(String),
    });
    expect(first.result).not.toHaveProperty('taskId');
    const before = await runCtl(world, ['tasks', 'alice', '--json']);
    expect((JSON.parse(before.stdout) as Json[]).filter((t) => t.tool === 'test_tool_with_task')).toEqual([]);

    const second = await rpc(alice, 'tools/call', {
      name: 'test_tool_with_task',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.result?.requestState,
    });
    expect(second.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    expect(second.result).not.toHaveProperty('requestState');
    expect(second.result).not.toHaveProperty('inputRequests');
    const id = second.result?.taskId as string;
    expect((await until(alice, id, 'completed')).result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
    expect((await rpc(bob, 'tasks/get', { taskId: id })).error?.code).toBe(-32602);
  });

  it('tasks/cancel cancels the downstream call: the task settles cancelled (pushed to a listen stream) and the only slot is free again', async () => {
    const id = (await rpc(alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600 } })).result?.taskId as string;
    expect((await taskOf(alice, id)).status).toBe('working');
    let cancelled: Promise<Answer> | undefined;
    // Once the stream is acknowledged, the cancel; the stream then carries the task's end.
    const notes = await listenTasks(alice, 'hosted-1', [id], (ns) => {
      cancelled ??= ns.length > 0 ? rpc(alice, 'tasks/cancel', { taskId: id }) : undefined;
      return ns.some((n) => n.params.status === 'cancelled');
    });
    expect((await cancelled!).result).toEqual({ resultType: 'complete' });
    expect(notes[0]).toMatchObject({ params: { notifications: { taskIds: [id] } } });
    expect(notes[1]).toMatchObject({ method: 'notifications/tasks', params: { taskId: id, status: 'working' } });
    expect(notes.at(-1)).toMatchObject({
      params: { taskId: id, status: 'cancelled', statusMessage: 'cancelled by its caller (tasks/cancel)' },
    });
    expect((await taskOf(alice, id)).status).toBe('cancelled');
    // One instance, one call: this answers only because the cancelled call left the server.
    const after = await rpc(alice, 'tools/call', { name: 'greet', arguments: { name: 'again' } });
    expect(after.result).toMatchObject({ content: [{ text: 'Hello, again!' }] });
    expect((await rpc(alice, 'tasks/cancel', { taskId: id })).result).toEqual({ resultType: 'complete' });
  });

  it("gRPC through mcpdctl tasks: lists, shows and cancels the caller's tasks, never another caller's", async () => {
    const id = (await rpc(alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600, label: 'ctl' } })).result
      ?.taskId as string;
    const listed = await runCtl(world, ['tasks', 'alice', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const tasks = JSON.parse(listed.stdout) as Json[];
    expect(tasks[0]).toMatchObject({ taskId: id, status: 'working', tool: 'slow_compute' });
    expect(tasks.length).toBeGreaterThan(3);

    const table = await runCtl(world, ['tasks', 'alice']);
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+working\\s+slow_compute`, 'm'));
    expect((await runCtl(world, ['tasks', 'bob'])).stdout).toBe('caller "bob" has no tasks (kept for their ttlMs after they end)\n');
    const foreign = await runCtl(world, ['tasks', 'bob', id, '--cancel']);
    expect([foreign.code, foreign.stderr]).toEqual([1, expect.stringContaining(`unknown task id "${id}" for caller "bob"`)]);

    const cancelled = await runCtl(world, ['tasks', 'alice', id, '--cancel']);
    expect(cancelled.stdout).toBe(`task ${id} cancelled\n`);
    const shown = JSON.parse((await runCtl(world, ['tasks', 'alice', id])).stdout) as Json;
    expect(shown).toMatchObject({ taskId: id, status: 'cancelled', statusMessage: 'cancelled by its caller (tasks/cancel)' });
    expect((await taskOf(alice, id)).status).toBe('cancelled');
  });

  it('a core restart fails the running task with a clear error and keeps the outcome of one that ended', async () => {
    const done = (await rpc(alice, 'tools/call', { name: 'greet', arguments: { name: 'x' } }, WITH_TASKS)).result;
    expect(done?.resultType).toBe('complete');
    const ended = (await rpc(alice, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'kept' } })).result
      ?.taskId as string;
    await until(alice, ended, 'completed');
    const running = (await rpc(alice, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'g.txt' } })).result?.taskId as string;
    await until(alice, running, 'input_required');

    const gone = new Promise((r) => core.once('exit', r));
    core.kill('SIGKILL');
    await gone;
    core = await world.startCore();

    // The gateway reconnects on its own; until it has, its requests fail (nothing else says when it is back).
    let failed: Json = {};
    await waitFor(
      'the gateway to reach the new core',
      async () => {
        const r = await rpc(alice, 'tasks/get', { taskId: running });
        failed = r.result ?? {};
        return r.result !== undefined;
      },
      20_000,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('the mcpd core restarted while the task ran') },
    });
    expect((await taskOf(alice, ended)).result).toMatchObject({ content: [{ text: 'computed kept after 0s' }] });
    expect((await rpc(bob, 'tasks/get', { taskId: ended })).error?.code).toBe(-32602);
  });
});

import { describe, expect, it } from 'vitest';
import type { ControlApi } from '../../../contract/control/control.js';
import { ControlPlaneService } from '../../../contract/gen/mcpd/control/v1/control.js';
import type { SessionRequestContext } from '../../../contract/session/session-handler.js';
import { AREAS } from '../../../contract/areas/all-areas.js';
import { isAbsent, type AreaMethod } from '../../../contract/areas/area.js';
import { grpcAreaHandlers } from './grpc-areas.js';
import { dispatchSessionRequest, sessionMethods } from './session-dispatch.js';

const methods: AreaMethod[] = AREAS.flatMap((a) => a.methods);
/** ControlPlane RPCs that are core administration, not an area (served in rpc/control-server.ts). */
const ADMIN_RPCS = ['getInfo', 'registerCaller', 'unregisterCaller', 'getRuntimeStatus', 'watchRuntimeStatus', 'reload', 'stop', 'session'];

function sessionContext(): SessionRequestContext {
  return {
    session: { id: 's1', caller: 'alice', profile: 'default' },
    signal: new AbortController().signal,
    onProgress: () => {},
    notify: () => {},
    onClose: () => {},
  } as unknown as SessionRequestContext;
}

/** The core's projections of the areas (internal/contract/areas/): gRPC and the Session. */
describe('control-plane areas in the core', () => {
  it('project every declared method onto gRPC: each ControlPlane RPC is an area method or core administration', () => {
    const handlers = grpcAreaHandlers({} as ControlApi, AREAS) as Record<string, unknown>;
    const declared = methods.flatMap((m) => (isAbsent(m.grpc) ? [] : [m.grpc.rpc as string]));
    expect(Object.keys(handlers).sort()).toEqual([...declared].sort());
    for (const rpc of declared) expect(typeof handlers[rpc], rpc).toBe('function');
    expect([...declared, ...ADMIN_RPCS].sort()).toEqual(Object.keys(ControlPlaneService).sort());
  });

  it('project every declared method onto the Session', () => {
    const declared = methods.filter((m) => !isAbsent(m.session)).map((m) => m.name);
    expect(sessionMethods().sort()).toEqual([...declared].sort());
  });

  it('reach, from every Session method, its core call', async () => {
    /** Session method → [valid params, the ControlApi call it must reach (undefined: answered in the session)]. */
    const expected: Record<string, [Record<string, unknown>, string | undefined]> = {
      'tools/list': [{}, 'listTools'],
      'tools/call': [{ name: 'srv__tool', arguments: {} }, 'callTool'],
      ping: [{}, undefined],
      'resources/list': [{}, 'resources.list'],
      'resources/templates/list': [{}, 'resources.listTemplates'],
      'resources/read': [{ uri: 'demo://x' }, 'resources.read'],
      'resources/subscribe': [{ uri: 'demo://x' }, 'resources.subscribe'],
      'resources/unsubscribe': [{ uri: 'demo://x' }, undefined],
      'prompts/list': [{}, 'prompts.list'],
      'prompts/get': [{ name: 'srv__prompt' }, 'prompts.get'],
      'completion/complete': [{ ref: { type: 'ref/prompt', name: 'p' } }, 'prompts.complete'],
      'logging/setLevel': [{ level: 'info' }, 'logs.stream'],
      'mcpd/desktop/read': [{}, 'context.desktop'],
      'mcpd/desktop/subscribe': [{}, 'context.watchDesktop'],
      'mcpd/desktop/unsubscribe': [{}, undefined],
      'mcpd/finder/query': [{}, 'context.finder'],
      'mcpd/finder/subscribe': [{}, 'context.watchFinder'],
      'mcpd/finder/unsubscribe': [{}, undefined],
      'tasks/get': [{ taskId: 't' }, 'tasks.get'],
      'tasks/update': [{ taskId: 't', inputResponses: {} }, 'tasks.update'],
      'tasks/cancel': [{ taskId: 't' }, 'tasks.cancel'],
      'mcpd/tasks/list': [{}, 'tasks.list'],
      'mcpd/tasks/watch': [{ taskIds: ['t'] }, 'tasks.watch'],
    };
    expect(Object.keys(expected).sort()).toEqual(sessionMethods().sort());
    class Reached extends Error {}
    // Every core call throws Reached naming itself; admission lets calls through.
    const calls = { run: (_what: string, signal: AbortSignal, fn: (s: AbortSignal) => Promise<unknown>) => fn(signal) };
    const core = (path: string): unknown =>
      new Proxy(() => {}, {
        get: (_t, prop) => (path === '' && prop === 'calls' ? calls : core(path ? `${path}.${String(prop)}` : String(prop))),
        apply: () => {
          throw new Reached(path);
        },
      });
    const api = core('') as ControlApi;
    for (const [method, [params, call]] of Object.entries(expected)) {
      const outcome = await dispatchSessionRequest(api, method, params as never, sessionContext()).then(
        () => undefined,
        (e: unknown) => (e instanceof Reached ? e.message : `failed otherwise: ${String(e)}`),
      );
      expect(outcome, method).toBe(call);
    }
  });

  it("leave admission to the core's door: every call that does work on a server is declared `core`", async () => {
    const calls = methods.filter((m) => m.admission === 'core');
    expect(calls.map((m) => m.name).sort()).toEqual([
      'completion/complete',
      'mcpd/desktop/read',
      'mcpd/finder/query',
      // An operator's restart of a server's instances: the stop's gate and the audit log apply to it too.
      'mcpd/servers/restart',
      'prompts/get',
      'resources/read',
      'tools/call',
    ]);
    // A projector adds no gate of its own: the Session's resources/read reaches the door's read at once
    // (which is where the stop is checked, from this declaration: core/app/door/admission.ts).
    const seen: string[] = [];
    const api = {
      resources: { read: (caller: string, uri: string) => (seen.push(`${caller} ${uri}`), Promise.resolve({ contents: [] })) },
    };
    await expect(
      dispatchSessionRequest(api as unknown as ControlApi, 'resources/read', { uri: 'x://y' }, sessionContext()),
    ).resolves.toEqual({
      contents: [],
    });
    expect(seen).toEqual(['alice x://y']);
  });
});

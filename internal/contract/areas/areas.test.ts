import { describe, expect, it } from 'vitest';
import type { ControlApi } from '../control/control.js';
import { ControlPlaneService } from '../gen/mcpd/control/v1/control.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { registerAreaHandlers } from '../../gateway/gateway-areas.js';
import { Gateway } from '../../gateway/mcp-gateway.js';
import { grpcAreaHandlers } from '../../core/infra/rpc/grpc-areas.js';
import { dispatchSessionRequest, sessionMethods } from '../../core/infra/rpc/session-dispatch.js';
import type { SessionRequestContext } from '../session/session-handler.js';
import { AREAS } from './all-areas.js';
import { isAbsent, type AreaMethod } from './area.js';

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

describe('control-plane areas', () => {
  it('declare every method on each projection, or say why it has none there', () => {
    const names = methods.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of methods) {
      for (const p of [m.session, m.grpc, m.gateway]) if (isAbsent(p)) expect(p.absent.length, m.name).toBeGreaterThan(10);
      // A method served nowhere would be dead; one with a core call must reach it somewhere.
      expect([m.session, m.grpc, m.gateway].every(isAbsent), m.name).toBe(false);
      // The gateway forwards to the Session method of the same name.
      if (!isAbsent(m.gateway)) expect(isAbsent(m.session), `${m.name}: the gateway forwards to the Session`).toBe(false);
    }
    expect(AREAS.map((a) => a.name)).toEqual(['tools', 'resources', 'prompts', 'logs', 'context']);
  });

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

  it('project every declared method onto the MCP gateway', async () => {
    const gateway = new Gateway({ caller: 'alice', socket: '/nonexistent/mcpd.sock', version: '0.0.0', log: () => {} });
    try {
      const declared = methods.filter((m) => !isAbsent(m.gateway)).map((m) => m.name);
      expect(declared.length).toBeGreaterThan(8);
      // The SDK refuses a second handler for a method that has one: each declared method has its handler.
      for (const name of declared) expect(() => gateway.server.assertCanSetRequestHandler(name), name).toThrow(/already exists/);
    } finally {
      await gateway.close();
    }
  });

  it('forward every method declared for the gateway from an MCP client to the core', async () => {
    // Valid params per method: a method added to an area without a line here fails this test.
    const samples: Record<string, Record<string, unknown>> = {
      'tools/list': {},
      'tools/call': { name: 'srv__tool', arguments: {} },
      'resources/list': {},
      'resources/templates/list': {},
      'resources/read': { uri: 'demo://x' },
      'resources/subscribe': { uri: 'demo://x' },
      'resources/unsubscribe': { uri: 'demo://x' },
      'prompts/list': {},
      'prompts/get': { name: 'srv__prompt' },
      'completion/complete': { ref: { type: 'ref/prompt', name: 'srv__prompt' }, argument: { name: 'a', value: '' } },
      'logging/setLevel': { level: 'info' },
    };
    const declared = methods.filter((m) => !isAbsent(m.gateway)).map((m) => m.name);
    expect(Object.keys(samples).sort()).toEqual([...declared].sort());
    // No core behind it: a request that reaches the forward fails with the gateway's "no core" error,
    // where a missing handler would be "Method not found" and the SDK's own setLevel would succeed.
    const gateway = new Gateway({ caller: 'alice', socket: '/nonexistent/mcpd.sock', version: '0.0.0', coreWaitMs: 1, log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'areas-test', version: '1' });
    try {
      await gateway.connect(serverSide);
      await client.connect(clientSide);
      for (const name of declared) {
        const failure = await client.request({ method: name, params: samples[name] } as never, EmptyResultSchema).then(
          () => new Error('answered'),
          (e: unknown) => e as Error,
        );
        expect(failure.message, name).toMatch(/no mcpd core reachable at \/nonexistent\/mcpd\.sock/);
      }
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('refuse, at gateway startup, an adapter for a method no area declares for the gateway', () => {
    const server = new Server(
      { name: 'mcpd', version: '1' },
      { capabilities: { resources: {}, tools: {}, prompts: {}, logging: {}, completions: {} } },
    );
    const adapters = new Map([['mcpd/desktop/read', () => Promise.resolve({})]]);
    expect(() => registerAreaHandlers(server, AREAS, adapters, () => Promise.resolve({}))).toThrow(
      /gateway adapter for mcpd\/desktop\/read, which no area declares for the gateway/,
    );
  });

  it("leave admission to the core's door: every call that does work on a server is declared `core`", async () => {
    const calls = methods.filter((m) => m.admission === 'core');
    expect(calls.map((m) => m.name).sort()).toEqual([
      'completion/complete',
      'mcpd/desktop/read',
      'mcpd/finder/query',
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

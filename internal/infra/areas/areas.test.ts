import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import type { ControlApi } from '../../domain/control.js';
import { McpdError } from '../../domain/errors.js';
import { ControlPlaneService } from '../../gen/mcpd/control/v1/control.js';
import { Gateway } from '../gateway/mcp-gateway.js';
import { grpcAreaHandlers } from '../rpc/grpc-areas.js';
import { dispatchSessionRequest, sessionMethods } from '../rpc/session-dispatch.js';
import type { SessionRequestContext } from '../rpc/session-handler.js';
import { AREAS } from './all-areas.js';
import { isAbsent, type AreaMethod } from './area.js';
import { must } from '../../domain/must.js';

const methods: AreaMethod[] = AREAS.flatMap((a) => a.methods);
/** ControlPlane RPCs that are core administration, not an area (served in rpc/control-server.ts). */
const ADMIN_RPCS = ['getInfo', 'registerCaller', 'unregisterCaller', 'getRuntimeStatus', 'watchRuntimeStatus', 'reload', 'stop', 'session'];

/** A core whose every area call fails the test: admission must refuse before any of them runs. */
function stoppingCore(): { api: ControlApi; admitted: string[] } {
  const admitted: string[] = [];
  const untouchable = new Proxy(
    {},
    {
      get: (_t, prop) => {
        throw new Error(`the core's ${String(prop)} was reached during a stop`);
      },
    },
  );
  const api = {
    calls: {
      run: (what: string) => {
        admitted.push(what);
        return Promise.reject(new McpdError('UNAVAILABLE', `the mcpd core is stopping: new calls are refused (${what})`));
      },
    },
    resources: untouchable,
    prompts: untouchable,
    context: untouchable,
    logs: untouchable,
  } as unknown as ControlApi;
  return { api, admitted };
}

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

  it('admit every call-like method through the stop gate on the Session, before the core sees it', async () => {
    const gated = methods.filter((m) => m.admission === 'gate');
    expect(gated.map((m) => m.name).sort()).toEqual(['completion/complete', 'prompts/get', 'resources/read']);
    for (const m of gated) {
      const { api, admitted } = stoppingCore();
      await expect(dispatchSessionRequest(api, m.name, { uri: 'x://y', name: 'p', ref: {} }, sessionContext())).rejects.toThrow(
        new RegExp(`new calls are refused \\(${m.name}\\)`),
      );
      expect(admitted).toEqual([m.name]);
    }
  });

  it('admit every call-like method through the stop gate on gRPC, before the core sees it', async () => {
    for (const m of methods.filter((x) => x.admission === 'gate')) {
      const { api, admitted } = stoppingCore();
      if (isAbsent(m.grpc)) throw new Error(`${m.name} is a call with no gRPC RPC`);
      const handlers = grpcAreaHandlers(api, AREAS) as Record<string, (call: unknown, cb: (e: unknown) => void) => void>;
      const handler = must(handlers[m.grpc.rpc], `the gRPC handler of ${m.name}`);
      const call = { request: { caller: 'alice', uri: 'x://y', name: 'p' }, on: () => {}, getDeadline: () => Infinity };
      const err = await new Promise<{ code: number; details: string }>((resolve) => handler(call, (e) => resolve(e as never)));
      expect(err.code, m.name).toBe(status.UNAVAILABLE);
      expect(err.details).toMatch(new RegExp(`new calls are refused \\(${m.name}\\)`));
      expect(admitted).toEqual([m.name]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ClientRequestError, type ClientChannel } from '../../contract/control/client-requests.js';
import type { JsonObject } from '../../shared/json.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../contract/model/spec.js';
import { ClientRequests, pickClient, type AttachedClient } from './client-requests.js';

const spec = { ...SPEC_DEFAULTS, name: 'every', transport: 'stdio', cmd: ['x'], env: {}, headers: {}, callTimeoutSeconds: 7 } as ServerSpec;

/** A channel that records what it was asked and answers with `answer`. */
function channel(answer: (method: string, params: JsonObject) => Promise<JsonObject> = async () => ({ ok: true })) {
  const asked: { method: string; params: JsonObject; timeoutMs: number; signal?: AbortSignal }[] = [];
  const ch: ClientChannel = {
    request: (method, params, opts) => {
      asked.push({ method, params, ...opts });
      return answer(method, params);
    },
  };
  return { ch, asked };
}

function world(callers: Record<string, string[]> = {}) {
  const notified: { fps: string[]; method: string }[] = [];
  /** Per instance: questions asked during a caller's call, and how many of them are over. */
  const questions: Record<string, { asked: number; over: number }> = {};
  const router = new ClientRequests({
    callersOf: (id) => callers[id] ?? [],
    clientAsked: (id) => {
      const q = (questions[id] ??= { asked: 0, over: 0 });
      q.asked++;
      return () => q.over++;
    },
    notifyServers: (fps, method) => {
      notified.push({ fps, method });
      return fps.length;
    },
    fingerprintsOf: (caller) => (caller === 'alice' ? ['fp1', 'fp2'] : ['fp3']),
    log: () => {},
  });
  return { router, notified, questions };
}

const session = (id: string, caller = 'alice') => ({ id, caller, profile: 'default' });

async function failure(p: Promise<unknown>): Promise<ClientRequestError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ClientRequestError);
  return e as ClientRequestError;
}

describe('pickClient (the routing rule)', () => {
  const req = { server: 'every', instanceId: 'every-1', method: 'sampling/createMessage' };
  const attached = (id: string, capabilities?: JsonObject): [string, AttachedClient] => [
    id,
    { session: session(id), channel: channel().ch, capabilities },
  ];

  it('takes the one session in flight, and refuses when several are: the request does not say whose it is', () => {
    const clients = new Map([attached('s2'), attached('s1')]);
    const one = pickClient(['s1', 's1'], clients, req);
    expect(one.ok && one.client.session.id).toBe('s1');
    const several = pickClient(['s1', 's2'], clients, req);
    expect(!several.ok && several.error.message).toMatch(
      /more than one caller session has a call in flight.*each call to this server an instance of its own/,
    );
    // A gRPC call (no gateway session) in flight beside a gateway session is just as ambiguous.
    expect(pickClient(['grpc-key', 's1'], clients, req).ok).toBe(false);
  });

  it('refuses when nothing is in flight, or when no key is a connected session', () => {
    const none = pickClient([], new Map([attached('s1')]), req);
    expect(!none.ok && none.error.message).toMatch(/no caller request is in flight on that instance/);
    const gone = pickClient(['s9'], new Map([attached('s1')]), req);
    expect(!gone.ok && gone.error.message).toMatch(/no MCP client connected/);
    expect(!gone.ok && gone.error.code).toBe(-32603);
  });

  it('refuses with -32601 naming the capability when the chosen client did not declare it, without trying another client', () => {
    const clients = new Map([attached('s1', { roots: {} }), attached('s2', { sampling: {} })]);
    const r = pickClient(['s1'], clients, req);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe(-32601);
    expect(!r.ok && r.error.message).toMatch(/caller "alice" did not declare the "sampling" capability/);
  });

  it('leaves the decision to the gateway while the capabilities are unknown', () => {
    const r = pickClient(['s1'], new Map([attached('s1')]), req);
    expect(r.ok).toBe(true);
  });
});

describe('ClientRequests', () => {
  it('forwards a request to the session in flight on the instance and returns its answer', async () => {
    const { router } = world({ 'every-1': ['s1'] });
    const { ch, asked } = channel(async () => ({ role: 'assistant', content: { type: 'text', text: 'canned' } }));
    router.attach(session('s1'), ch);
    router.setCapabilities('s1', { sampling: {} }, 'test-client');
    const r = await router.handle(spec, 'every-1', 'sampling/createMessage', { messages: [] });
    expect(r).toEqual({ role: 'assistant', content: { type: 'text', text: 'canned' } });
    expect(asked.map((a) => [a.method, a.timeoutMs])).toEqual([['sampling/createMessage', 7000]]);
  });

  it("tells the pool its server asks its client while a caller's call is in flight, and when the question is over", async () => {
    const { router, questions } = world({ 'every-1': ['s1'], 'every-2': ['s1', 's2'] });
    let answer: (r: JsonObject) => void = () => {};
    router.attach(session('s1'), channel(() => new Promise((r) => (answer = r))).ch);
    const open = router.handle(spec, 'every-1', 'roots/list', {});
    expect(questions['every-1']).toEqual({ asked: 1, over: 0 });
    answer({ roots: [] });
    await open;
    expect(questions['every-1']).toEqual({ asked: 1, over: 1 });
    // Refused as ambiguous: still marks the server as one that asks, so its next calls get instances of their own.
    await failure(router.handle(spec, 'every-2', 'roots/list', {}));
    expect(questions['every-2']).toEqual({ asked: 1, over: 1 });
    // Nothing in flight (a server asking as it starts): not a caller's question.
    await failure(router.handle(spec, 'every-3', 'roots/list', {}));
    expect(questions['every-3']).toBeUndefined();
  });

  it('does not mark the pool for a question its one caller could not answer anyway (no such capability, no MCP client)', async () => {
    // server-everything asks roots/list as it starts; landing during a call from a client without `roots`
    // it marked the pool, which then served one call at a time for good.
    const { router, questions } = world({ 'every-1': ['s1'], 'every-2': ['grpc-call'] });
    router.attach(session('s1'), channel().ch);
    router.setCapabilities('s1', { sampling: {} }, 'bench');
    const e = await failure(router.handle(spec, 'every-1', 'roots/list', {}));
    expect(e.message).toMatch(/did not declare the "roots" capability/);
    expect(questions['every-1']).toBeUndefined();
    // A caller with no MCP client attached (a gRPC call) cannot answer either.
    await failure(router.handle(spec, 'every-2', 'sampling/createMessage', { messages: [] }));
    expect(questions['every-2']).toBeUndefined();
  });

  it('names the client in the capability error once the gateway reported it', async () => {
    const { router } = world({ 'every-1': ['s1'] });
    const { ch, asked } = channel();
    router.attach(session('s1'), ch);
    router.setCapabilities('s1', {}, 'plain-client');
    const e = await failure(router.handle(spec, 'every-1', 'elicitation/create', {}));
    expect(e.message).toMatch(/caller "alice" \(plain-client\) did not declare the "elicitation" capability/);
    expect(asked).toHaveLength(0);
  });

  it('refuses methods it does not forward', async () => {
    const { router } = world({ 'every-1': ['s1'] });
    router.attach(session('s1'), channel().ch);
    const e = await failure(router.handle(spec, 'every-1', 'tasks/get', {}));
    expect(e.code).toBe(-32601);
    expect(e.message).toMatch(/does not forward "tasks\/get".*sampling\/createMessage/);
  });

  it('stops routing to a detached session, and a late detach of an older attach keeps the newer one', async () => {
    const { router } = world({ 'every-1': ['s1'] });
    const detachOld = router.attach(session('s1'), channel().ch);
    const fresh = channel(async () => ({ roots: [] }));
    router.attach(session('s1'), fresh.ch);
    detachOld();
    expect(await router.handle(spec, 'every-1', 'roots/list', {})).toEqual({ roots: [] });
    const { router: r2 } = world({ 'every-1': ['s1'] });
    r2.attach(session('s1'), channel().ch)();
    const e = await failure(r2.handle(spec, 'every-1', 'roots/list', {}));
    expect(e.message).toMatch(/no MCP client connected/);
  });

  it("passes the client's error through and wraps other failures as internal errors", async () => {
    const { router } = world({ 'every-1': ['s1'] });
    router.attach(session('s1'), channel(() => Promise.reject(new ClientRequestError(-1, 'user rejected'))).ch);
    const e = await failure(router.handle(spec, 'every-1', 'sampling/createMessage', {}));
    expect([e.code, e.message]).toEqual([-1, 'user rejected']);
    const { router: r2 } = world({ 'every-1': ['s2'] });
    r2.attach(session('s2'), channel(() => Promise.reject(new Error('socket broke'))).ch);
    const e2 = await failure(r2.handle(spec, 'every-1', 'sampling/createMessage', {}));
    expect([e2.code, e2.message]).toEqual([
      -32603,
      'forwarding sampling/createMessage to the MCP client of caller "alice" failed: socket broke',
    ]);
  });

  it('hands the server cancellation signal to the channel', async () => {
    const { router } = world({ 'every-1': ['s1'] });
    const { ch, asked } = channel();
    router.attach(session('s1'), ch);
    const ac = new AbortController();
    await router.handle(spec, 'every-1', 'roots/list', {}, ac.signal);
    const handed = asked[0]?.signal;
    expect(handed?.aborted).toBe(false);
    ac.abort();
    expect(handed?.aborted).toBe(true);
  });

  it("withdraws the question open at a session's client when that session's call on the instance ends unanswered", async () => {
    const { router } = world({ 'every-1': ['s1'], 'every-2': ['s1'] });
    // The client never answers: only a withdrawal ends the request.
    const never = channel(() => new Promise(() => {}));
    router.attach(session('s1'), {
      request: (method, params, opts) =>
        new Promise((resolve, reject) => {
          opts.signal?.addEventListener('abort', () => reject(new Error('cancelled toward the client')));
          void never.ch.request(method, params, opts).then(resolve);
        }),
    });
    const open = router.handle(spec, 'every-1', 'elicitation/create', {});
    const other = router.handle(spec, 'every-2', 'elicitation/create', {});
    router.callAbandoned('every-1', 's2'); // another session's call: not this question
    router.callAbandoned('every-9', 's1'); // another instance
    router.callAbandoned('every-1', 's1');
    expect((await failure(open)).message).toMatch(/withdrew the request: the call it was asked for ended/);
    expect(never.asked.map((a) => a.signal?.aborted)).toEqual([true, false]);
    router.callAbandoned('every-2', 's1');
    await failure(other);
  });

  it("tells the servers of the session's profile that its roots changed", () => {
    const { router, notified } = world();
    router.attach(session('s1', 'alice'), channel().ch);
    router.attach(session('s2', 'bob'), channel().ch);
    router.rootsChanged('s2');
    router.rootsChanged('unknown');
    expect(notified).toEqual([{ fps: ['fp3'], method: 'notifications/roots/list_changed' }]);
  });
});

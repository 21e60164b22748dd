import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as ioClient, type Socket } from 'socket.io-client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { metricsUrl } from '../support/core-metrics.js';
import { rawPost, startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';
import { parsePromText, sampleValue } from '../support/prom-text.js';
import { TestAgent } from '../support/smcp-agent-peer.js';
import { computerJoined } from '../support/smcp-core-computer.js';
import { startSmcpProc } from '../support/smcp-server-proc.js';
import { callersWithRules } from '../support/policy-rules.js';
import { collectStream, ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import type { McpdError } from '../../internal/shared/errors.js';

const KEY = 'policy-faces-key-0123456789';

/** The rules of the issue, and a quota for carol. */
const CALLERS_YAML = callersWithRules('default');

/** How a face answered a call, the same words for every face: ok, or which rule refused it and how. */
type Outcome = 'ok' | { rule: string; reason: string; message: string };

interface FaceDriver {
  /** The ev__ tools the caller is shown, sorted. */
  list(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<Outcome>;
  close?(): Promise<void> | void;
  /** MCP clients: how many `notifications/tools/list_changed` arrived. */
  listChanges?(): number;
}

const evTools = (names: string[]) => names.filter((n) => n.startsWith('ev__')).sort();
const ruleIn = (message: string) => /policy rule "([^"]+)"/.exec(message)?.[1] ?? `(no rule named in: ${message})`;

/** An MCP client's refusal: the JSON-RPC error the gateway sent, with the reason and the rule in its data. */
function mcpOutcome(e: unknown): Outcome {
  const err = e as { code?: number; message: string; data?: { reason?: string; details?: { policyRule?: string } } };
  expect(err.code, err.message).toBe(-32003);
  expect(err.data?.details?.policyRule).toBe(ruleIn(err.message));
  return { rule: err.data?.details?.policyRule ?? '', reason: err.data?.reason ?? '', message: err.message };
}

function sdkDriver(client: Client): FaceDriver {
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  return {
    listChanges: () => changes,
    list: async () => evTools((await client.listTools()).tools.map((t) => t.name)),
    call: async (name, args) => {
      try {
        const r = await client.callTool({ name, arguments: args });
        return r.isError ? { rule: '', reason: 'isError', message: JSON.stringify(r.content) } : 'ok';
      } catch (e) {
        return mcpOutcome(e);
      }
    },
    close: () => client.close(),
  };
}

/** 2026-07-28 over HTTP: stateless requests, the protocol in every request's `_meta`. */
function http2026Driver(url: string): FaceDriver {
  const V = '2026-07-28';
  const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
  let id = 0;
  const post = async (method: string, params: Record<string, unknown>) => {
    const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
    const h = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...name,
    };
    const r = await rawPost(url, h, { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: META } });
    const body = r.body.startsWith('event:') ? r.body.split('data: ').pop()! : r.body;
    return JSON.parse(body) as { result?: { tools?: { name: string }[]; isError?: boolean }; error?: unknown };
  };
  return {
    list: async () => evTools((await post('tools/list', {})).result?.tools?.map((t) => t.name) ?? []),
    call: async (name, args) => {
      const a = await post('tools/call', { name, arguments: args });
      if (a.error) return mcpOutcome(a.error);
      return a.result?.isError ? { rule: '', reason: 'isError', message: JSON.stringify(a.result) } : 'ok';
    },
  };
}

function grpcDriver(socket: string, caller: string): FaceDriver {
  const grpc = createControlClient(socket);
  return {
    list: async () => evTools((await new ControlCalls(grpc).listTools({ caller, cursor: '', pageSize: 0 })).tools.map((t) => t.name)),
    call: async (name, args) => {
      const stream = grpc.callTool({ caller, name, argumentsJson: Buffer.from(JSON.stringify(args)), routingKey: '', timeoutMs: 0 });
      try {
        await collectStream(stream, () => {});
        return 'ok';
      } catch (e) {
        // collectStream gives the McpdError the gRPC status and its metadata carried.
        const err = e as McpdError;
        expect((err.details.data as { policyRule?: string }).policyRule).toBe(ruleIn(err.message));
        return { rule: ruleIn(err.message), reason: err.reason, message: err.message };
      }
    },
    close: () => grpc.close(),
  };
}

/** The dashboard's /app socket: the tools watch (what the page shows) and the try-it call. */
async function dashboardDriver(base: string, token: string, caller: string): Promise<FaceDriver> {
  const page: Socket = ioClient(`${base}/app`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { authorization: `Bearer ${token}` },
  });
  await new Promise<void>((resolve, reject) => {
    page.once('connect', resolve);
    page.once('connect_error', reject);
  });
  let seq = 0;
  return {
    list: async () => {
      const snap = new Promise<{ tools: { name: string }[] }>((resolve) => page.once('tools', resolve));
      const ack = (await page.timeout(60_000).emitWithAck('watch', { kind: 'tools', caller })) as { ok: boolean; error?: string };
      expect(ack.ok, ack.error).toBe(true);
      return evTools((await snap).tools.map((t) => t.name));
    },
    call: async (name, args) => {
      const r = (await page.timeout(60_000).emitWithAck('call', { caller, id: `c${++seq}`, name, args })) as {
        ok: boolean;
        error?: string;
      };
      return r.ok ? 'ok' : { rule: ruleIn(r.error ?? ''), reason: 'dashboard', message: r.error ?? '' };
    },
    close: () => void page.close(),
  };
}

/** An SMCP agent in the office, asking the core's Computer `computer` (which serves one caller). */
function smcpDriver(agent: TestAgent, computer: string): FaceDriver {
  type Result = { isError?: boolean; structuredContent?: { error: string; error_type: string; code: number; policy_rule?: string } };
  return {
    list: async () => evTools((await agent.request<{ tools: { name: string }[] }>('client:get_tools', computer)).tools.map((t) => t.name)),
    call: async (name, params) => {
      const r = await agent.request<Result>('client:tool_call', computer, { tool_name: name, params, timeout: 60 });
      if (!r.isError) return 'ok';
      const s = r.structuredContent;
      expect([403, 429]).toContain(s?.code);
      return { rule: s?.policy_rule ?? '', reason: s?.error_type ?? '', message: s?.error ?? '' };
    },
  };
}

describe('policies: the same lists and refusals on every face', () => {
  let world: TestWorld;
  let router: Awaited<ReturnType<typeof startSmcpProc>>;
  let agent: TestAgent;
  const gateways: HttpGatewayProc[] = [];
  const faces = new Map<string, { alice: FaceDriver; carol: FaceDriver }>();
  /** The metrics listener, which also serves the dashboard. */
  let base = '';

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('ev', { idleSeconds: 300 })),
      'callers.yaml': CALLERS_YAML,
    });
    router = await startSmcpProc([], world.env({ SMCP_API_KEY: KEY }));
    world.write(
      'runtime.yaml',
      `metricsAddress: 127.0.0.1:0\nsmcp:\n  url: ${router.url}\n  apiKey: \${SMCP_API_KEY}\n  office: office-1\n  computers:\n    - { name: laptop, caller: alice }\n    - { name: desk, caller: carol }\n`,
    );
    await world.startCore({ SMCP_API_KEY: KEY });
    const control = createControlClient(world.socket);
    await computerJoined(control, 'laptop');
    await computerJoined(control, 'desk');
    control.close();
    agent = await TestAgent.join(router.url, KEY, 'office-1');
    base = new URL(metricsUrl(world)!).origin;
    const { token } = JSON.parse(readFileSync(join(dirname(world.socket), 'dashboard.json'), 'utf8')) as { token: string };

    const both = async (make: (caller: string) => Promise<FaceDriver> | FaceDriver) => ({
      alice: await make('alice'),
      carol: await make('carol'),
    });
    faces.set('MCP stdio gateway (Session)', await both(async (c) => sdkDriver(await world.gateway(c))));
    faces.set(
      'HTTP gateway 2025-11-25 (Session)',
      await both(async (c) => {
        const gw = await startWorldHttpGateway(world, c);
        gateways.push(gw);
        const client = new Client({ name: `http-${c}`, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
        return sdkDriver(client);
      }),
    );
    faces.set(
      'HTTP gateway 2026-07-28 (Session)',
      await both(async (c) => {
        const gw = await startWorldHttpGateway(world, c);
        gateways.push(gw);
        return http2026Driver(gw.url);
      }),
    );
    faces.set('gRPC ListTools/CallTool', await both((c) => grpcDriver(world.socket, c)));
    faces.set('dashboard /app socket', await both((c) => dashboardDriver(base, token, c)));
    faces.set('SMCP agent', { alice: smcpDriver(agent, 'laptop'), carol: smcpDriver(agent, 'desk') });
  });

  afterAll(async () => {
    for (const f of faces.values()) for (const d of [f.alice, f.carol]) await d.close?.();
    agent?.close();
    for (const gw of gateways) await stopProc(gw.proc);
    await router?.stop();
    await world?.cleanup();
  });

  it('hides an unconditionally denied tool from the lists, refuses it, and refuses a conditional match, naming the rule', async () => {
    const seen = new Map<string, unknown>();
    for (const [face, { alice, carol }] of faces) {
      const denied = await alice.call('ev__get-sum', { a: 1, b: 2 });
      const secret = await alice.call('ev__echo', { message: 'secret' });
      seen.set(face, {
        aliceList: await alice.list(),
        carolList: await carol.list(),
        sum: denied === 'ok' ? 'ok' : denied.rule,
        secret: secret === 'ok' ? 'ok' : secret.rule,
        hello: await alice.call('ev__echo', { message: 'hello' }),
      });
      // The message says which rule and what was refused, on every face.
      if (denied !== 'ok')
        expect(denied.message, face).toMatch(
          /denied by policy rule "no-sum-for-alice" \(callers\.yaml line 3\): alice may not use tool ev__get-sum/,
        );
      if (secret !== 'ok') expect(secret.message, face).toMatch(/denied by policy rule "no-secret-echo"/);
      if (denied !== 'ok' && denied.reason !== 'dashboard') expect(denied.reason, face).toBe('PERMISSION_DENIED');
    }
    const expected = {
      aliceList: expect.not.arrayContaining(['ev__get-sum']) as unknown,
      carolList: expect.arrayContaining(['ev__echo', 'ev__get-sum']) as unknown,
      sum: 'no-sum-for-alice',
      secret: 'no-secret-echo',
      hello: 'ok',
    };
    for (const [face, got] of seen) expect(got, face).toEqual(expected);
    // Identical lists everywhere, and the conditional rule keeps ev__echo listed.
    const lists = [...seen.values()].map((s) => (s as { aliceList: string[] }).aliceList);
    expect(new Set(lists.map((l) => l.join(','))).size).toBe(1);
    expect(lists[0]).toContain('ev__echo');
  });

  it('a quota is per caller and target across faces, refuses past it saying when to retry, and shows in status and metrics', async () => {
    const [first, ...others] = [...faces.entries()];
    expect(await first![1].carol.call('ev__echo', { message: 'one' })).toBe('ok');
    for (const [face, { carol }] of others) {
      const r = await carol.call('ev__echo', { message: 'two' });
      expect(r, face).toMatchObject({ rule: 'carol-echo-quota' });
      if (r === 'ok') continue;
      expect(r.message, face).toMatch(
        /quota of policy rule "carol-echo-quota" \(1\/hour, callers\.yaml line \d+\) is used up for carol on tool ev__echo: retry in \d+ s/,
      );
      if (r.reason !== 'dashboard') expect(r.reason, face).toBe('RESOURCE_EXHAUSTED');
    }
    // Another target of the same caller is not limited by it.
    expect(await first![1].carol.call('ev__get-sum', { a: 1, b: 2 })).toBe('ok');

    const control = createControlClient(world.socket);
    try {
      const st = await new ControlCalls(control).status();
      expect(st.policyQuotas).toEqual([
        { rule: 'carol-echo-quota', caller: 'carol', target: 'tool:ev__echo', rate: '1/hour', remaining: 0 },
      ]);
    } finally {
      control.close();
    }
    const metrics = parsePromText(await (await fetch(`${base}/metrics`)).text());
    expect(sampleValue(metrics, 'mcpd_policy_decisions_total', { rule: 'carol-echo-quota', effect: 'allow' })).toBe(1);
    expect(sampleValue(metrics, 'mcpd_policy_decisions_total', { rule: 'carol-echo-quota', effect: 'deny' })).toBe(faces.size - 1);
    expect(sampleValue(metrics, 'mcpd_policy_decisions_total', { rule: 'no-sum-for-alice', effect: 'deny' })).toBe(faces.size);
  });

  it('rules follow the store: an edit of callers.yaml applies on every face, in calls, lists and list_changed', async () => {
    const before = new Map([...faces].map(([face, { alice }]) => [face, alice.listChanges?.()]));
    world.write('callers.yaml', CALLERS_YAML.replace('tools: ["ev__get-sum"]', 'tools: ["ev__get-tiny-image"]'));
    const grpc = faces.get('gRPC ListTools/CallTool')!.alice;
    await waitFor('the edited rules to apply', async () => (await grpc.call('ev__get-sum', { a: 1, b: 2 })) === 'ok');
    for (const [face, { alice }] of faces) {
      expect(await alice.call('ev__get-sum', { a: 1, b: 2 }), face).toBe('ok');
      expect(await alice.call('ev__get-tiny-image', {}), face).toMatchObject({ rule: 'no-sum-for-alice' });
    }
    // MCP clients are told their list changed (the rules changed, not the servers' tools).
    for (const [face, { alice }] of faces) {
      const was = before.get(face);
      if (was !== undefined) await waitFor(`${face}: tools/list_changed`, () => (alice.listChanges?.() ?? 0) > was);
    }
    for (const [face, { alice }] of faces) {
      const list = await alice.list();
      expect(list, face).toContain('ev__get-sum');
      expect(list, face).not.toContain('ev__get-tiny-image');
    }
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { INITIALIZE, rawPost, sse, startWorldHttpGateway, stopProc } from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { startStdioGatewayProc } from '../support/stdio-gateway-proc.js';
import { everythingServer, profile } from '../support/profiles.js';

const STEPS = 4;
const CALLS = 5;
const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: STEPS }, _meta: { progressToken: `t${id}` } },
});

/** A message of one call, as read off the wire: `progress N` or `result`. */
function summary(line: string, id: number): string | undefined {
  const m = JSON.parse(line) as { id?: number; method?: string; params?: { progressToken?: string; progress?: number } };
  if (m.method === 'notifications/progress' && m.params?.progressToken === `t${id}`) return `progress ${m.params.progress}`;
  if (m.id === id) return 'result';
  return undefined;
}

const IN_ORDER = [...Array.from({ length: STEPS }, (_, i) => `progress ${i + 1}`), 'result'];

/**
 * The gateway writes every progress notification of a call before its result, on both of its wires.
 * (That a stock SDK client on stdio also delivers the last one: progress-stock-client.test.ts.)
 * The bytes are read here as they come, without an MCP SDK client in between.
 */
describe('final progress before the result, on the raw wire', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it(`stdio: ${CALLS} calls, each with every step (the last included) on lines before its result`, async () => {
    const { proc: gw, exited, output, send } = startStdioGatewayProc('wire', world.socket, world.env());
    try {
      for (let id = 2; id < 2 + CALLS; id++) {
        send(call(id));
        await waitFor(`the result of call ${id}`, () => output().includes(`"id":${id},`) || output().includes(`"id":${id}}`), 60_000);
        const lines = output()
          .split('\n')
          .filter((l) => l.trim() !== '');
        expect(lines.map((l) => summary(l, id)).filter((s) => s !== undefined)).toEqual(IN_ORDER);
      }
    } finally {
      gw.stdin?.end();
      await exited;
    }
  });

  it(`HTTP: ${CALLS} calls, each an SSE stream whose events are every step, then the result`, async () => {
    const http = await startWorldHttpGateway(world, 'wire-http');
    try {
      const init = await rawPost(http.url, {}, INITIALIZE);
      const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      await rawPost(http.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
      for (let id = 2; id < 2 + CALLS; id++) {
        const { events } = await sse(http.url, 'POST', session, call(id), (ev) => ev.some((e) => summary(e.data, id) === 'result'));
        expect(events.map((e) => summary(e.data, id)).filter((s) => s !== undefined)).toEqual(IN_ORDER);
      }
    } finally {
      await stopProc(http.proc);
    }
  });
  it('an SDK client over Streamable HTTP (as the Inspector in a browser connects) is given every step', async () => {
    const http = await startWorldHttpGateway(world, 'wire-sdk');
    // A stock client: nothing between its transport and its Protocol.
    const client = new Client({ name: 'inspector-like', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      for (let i = 0; i < CALLS; i++) {
        const seen: number[] = [];
        await client.callTool({ name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: STEPS } }, undefined, {
          onprogress: (p) => seen.push(p.progress),
        });
        expect(seen).toEqual([1, 2, 3, 4]);
      }
    } finally {
      await client.close();
      await stopProc(http.proc);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { TestWorld } from '../support/core-process.js';
import { ECHO_SERVER, EVERYTHING, MCPD, MCPDMCP } from '../support/paths.js';
import { cmdline, countProcs, pidsWithTag, waitFor } from '../support/procs.js';
import { rssMiB } from '../support/memory.js';
import { INITIALIZE, rawPost, startHttpGatewayProc } from '../support/http-gateway.js';
import { echoServer, everythingServer, profile } from '../support/profiles.js';
import { ControlCalls, createControlClient } from '../../internal/infra/rpc/control-client.js';
import { SessionClient } from '../../internal/infra/rpc/session-client.js';
import type * as pb from '../../internal/gen/mcpd/control/v1/control.js';

/**
 * 1,000 gateway connect/disconnect cycles by default (MCPD_CHURN_CYCLES scales them): most as Session
 * streams opened from this process — byte for byte what a gateway sends — plus real `mcpdmcp`
 * processes (half closed cleanly, half SIGKILLed mid-call) and abandoned HTTP sessions.
 */
const TOTAL = Number(process.env.MCPD_CHURN_CYCLES ?? 1000);
const PROCESSES = Math.round(TOTAL * 0.04);
const HTTP_SESSIONS = Math.round(TOTAL * 0.1);
const SESSIONS = TOTAL - PROCESSES - HTTP_SESSIONS;
const RESOURCE = 'demo://resource/dynamic/text/1';

async function inParallel(n: number, width: number, run: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await run(next++);
    }),
  );
}

interface Snapshot {
  servers: number;
  sessions: number;
  pinned: number;
  rss: number;
}

describe('churn: gateway connect/disconnect cycles', () => {
  let world: TestWorld;
  let ctl: ReturnType<typeof createControlClient>;
  let core: number;

  async function snapshot(): Promise<Snapshot> {
    const st: pb.RuntimeStatus = await new ControlCalls(ctl).status();
    return {
      servers: countProcs(world.tag, ECHO_SERVER) + countProcs(world.tag, EVERYTHING),
      sessions: st.callers.reduce((n, c) => n + c.sessions, 0),
      pinned: st.pools.flatMap((p) => p.instances).reduce((n, i) => n + i.pinnedKeys, 0),
      rss: rssMiB(core),
    };
  }

  /** One cycle as a gateway does it: hello, a call, a subscription (a pin) on every fourth, close. */
  async function sessionCycle(i: number): Promise<void> {
    const s = await SessionClient.connect(world.socket, {
      caller: `churn${i % 7}`,
      pid: process.pid,
      clientName: 'churn',
      previousSessionId: '',
    });
    try {
      const r = (await s.request('tools/call', { name: 'fx__echo', arguments: { i } })) as { structuredContent?: { i?: number } };
      expect(r.structuredContent?.i).toBe(i);
      if (i % 4 === 0) await s.request('resources/subscribe', { uri: RESOURCE });
    } finally {
      s.close();
    }
  }

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        echoServer('fx', { idleSeconds: 300, maxConcurrent: 32 }),
        everythingServer('ev', { idleSeconds: 300 }),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    core = pidsWithTag(world.tag).find((p) => cmdline(p).includes(MCPD)) as number;
    ctl = createControlClient(world.socket);
  });
  afterAll(async () => {
    ctl?.close();
    await world.cleanup();
  });

  it(`${TOTAL} cycles return server processes, sessions, pins and core memory to their baseline`, async () => {
    const began = Date.now();
    // Warm-up: both servers started, code paths and caches filled, so the baseline is the steady state.
    await inParallel(40, 8, sessionCycle);
    await waitFor('warm-up sessions to end', async () => (await snapshot()).sessions === 0 && (await snapshot()).pinned === 0);
    const base = await snapshot();
    expect(base.servers).toBe(2);

    await inParallel(SESSIONS, 8, sessionCycle);
    // What the baseline check below would miss if subscriptions never pinned: one held open shows its pin.
    const holder = await SessionClient.connect(world.socket, {
      caller: 'holder',
      pid: process.pid,
      clientName: 'churn',
      previousSessionId: '',
    });
    await holder.request('resources/subscribe', { uri: RESOURCE });
    const holding = await snapshot();
    expect(holding.pinned).toBe(base.pinned + 1);
    expect(holding.sessions).toBe(base.sessions + 1);
    holder.close();

    // Real gateway processes: half end cleanly (stdin closed), half are SIGKILLed during a call.
    await inParallel(PROCESSES, 4, async (i) => {
      const gw = spawn(process.execPath, [MCPDMCP, `proc${i % 3}`, '--socket', world.socket, '--no-autostart'], {
        env: world.env(),
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      const exited = new Promise((r) => gw.once('exit', r));
      let out = '';
      gw.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      const send = (m: object) => gw.stdin.write(`${JSON.stringify(m)}\n`);
      send(INITIALIZE);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fx__echo', arguments: { i } } });
      await waitFor('the gateway to answer the call', () => out.includes('"id":2'), 30_000);
      if (i % 2 === 0) {
        gw.stdin.end();
      } else {
        send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fx__slow', arguments: { steps: 50, ms: 20 } } });
        gw.kill('SIGKILL');
      }
      await exited;
    });

    // Abandoned HTTP sessions: initialized, one call, never deleted; then the gateway itself dies.
    const http = await startHttpGatewayProc('web', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0'], world.env());
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    await inParallel(HTTP_SESSIONS, 4, async (i) => {
      const init = await rawPost(http.url, headers, INITIALIZE);
      expect(init.status).toBe(200);
      const sid = String(init.headers['mcp-session-id']);
      const withSession = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
      await rawPost(http.url, withSession, { jsonrpc: '2.0', method: 'notifications/initialized' });
      const call = await rawPost(http.url, withSession, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fx__echo', arguments: { i } },
      });
      expect(call.body).toContain(`{\\"i\\":${i}}`);
    });
    const held = await snapshot();
    // The abandoned sessions are real core sessions while their gateway lives.
    expect(held.sessions).toBeGreaterThanOrEqual(1);
    http.proc.kill('SIGKILL');
    await new Promise((r) => http.proc.once('exit', r));

    let after = await snapshot();
    await waitFor(
      'sessions and pins to return to the baseline',
      async () => {
        after = await snapshot();
        return after.sessions === base.sessions && after.pinned === base.pinned;
      },
      30_000,
    );
    expect(after.servers).toBe(base.servers);
    expect(countProcs(world.tag, MCPDMCP)).toBe(0);
    const growth = after.rss - base.rss;
    // Memory: no per-cycle leak (1,000 cycles × even 50 KB would be +50 MiB).
    expect(growth).toBeLessThan(40);
    const seconds = (Date.now() - began) / 1000;
    process.stdout.write(
      `churn: ${TOTAL} cycles (${SESSIONS} sessions, ${PROCESSES} processes, ${HTTP_SESSIONS} abandoned HTTP sessions, ${held.sessions} held before the HTTP gateway died) in ${seconds.toFixed(1)} s; ` +
        `core RSS ${base.rss.toFixed(1)} → ${after.rss.toFixed(1)} MiB; servers ${base.servers} → ${after.servers}; sessions ${base.sessions} → ${after.sessions}; pins ${base.pinned} → ${after.pinned}\n`,
    );
  }, 240_000);
});

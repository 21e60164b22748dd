import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionClientMessage, SessionServerMessage } from '../../internal/contract/gen/mcpd/control/v1/session.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/session.js';
import { FrameReader, SESSION_PREFACE, frame } from '../../internal/contract/session/session-framing.js';
import { FIRST_WINDOW } from '../../internal/core/infra/rpc/request-admission.js';
import { TestWorld } from '../support/core-process.js';
import { metricsUrl } from '../support/core-metrics.js';
import { waitFor } from '../support/procs.js';
import { parsePromText } from '../support/prom-text.js';
import { echoServer, profile } from '../support/profiles.js';

const MiB = 1024 * 1024;
/** The output budget these cores run with (runtime.yaml sessionOutboundBytes; the default is 8 MiB). */
const BUDGET = 8 * MiB;
/** Each call's answer: the fixture's `big` tool returns this many MiB of text. */
const RESULT_MIB = 4;
const CALLS = 30;
/**
 * The most a Session may hold unread: its budget, plus the answers of the requests that started before
 * any answer said how big answers are (FIRST_WINDOW), each with a little JSON around it. Unbounded, a
 * paused session holds all CALLS answers (120 MiB).
 */
const MOST_UNREAD = BUDGET + FIRST_WINDOW * (RESULT_MIB + 0.1) * MiB;

interface SessionMetrics {
  unread: number;
  peak: number;
  queued: number;
  deferred: number;
}

async function sessionMetrics(url: string): Promise<SessionMetrics> {
  const families = parsePromText(await (await fetch(`${url}/metrics`)).text());
  const value = (name: string) => families.get(name)?.samples[0]?.value ?? Number.NaN;
  return {
    unread: value('mcpd_session_output_unread_bytes'),
    peak: value('mcpd_session_output_peak_unread_bytes'),
    queued: value('mcpd_session_queued_requests'),
    deferred: value('mcpd_session_requests_deferred_total'),
  };
}

const bigCall = (id: number): pb.SessionClientMessage => ({
  request: { id, method: 'tools/call', paramsJson: Buffer.from(`{"name":"fx__big","arguments":{"mb":${RESULT_MIB}}}`), timeoutMs: 0 },
});

/** Checks one answer is the whole 4 MiB result (not an error), without keeping it. */
function checkAnswer(r: pb.SessionResponse): void {
  if (r.error) throw new Error(`call ${r.id} failed: ${r.error.message}`);
  expect(r.resultJson?.length ?? 0).toBeGreaterThan(RESULT_MIB * MiB);
}

describe('a Session that pipelines calls with 4 MiB answers and stops reading', () => {
  let world: TestWorld;
  let url: string;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300, maxConcurrent: 64 }, { FIXTURE_FAULT_TOOLS: '1' })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': `metricsAddress: "127.0.0.1:0"\nsessionOutboundBytes: ${BUDGET}\n`,
    });
    await world.startCore();
    await waitFor('the core to log its metrics address', () => metricsUrl(world) !== undefined);
    url = metricsUrl(world) as string;
  });
  afterAll(async () => world.cleanup());

  /** Waits until the core stopped starting this session's calls: some wait unstarted while its output is over budget. */
  async function untilHeldBack(): Promise<void> {
    await waitFor('the core to hold calls back while the output is over its budget', async () => {
      const m = await sessionMetrics(url);
      return m.queued > 0 && m.unread > BUDGET;
    });
  }

  it(
    'framed Session: the core holds at most its budget plus a first window, and every call completes once the client reads',
    { timeout: 180_000 },
    async () => {
      const before = await sessionMetrics(url);
      const sock: Socket = connect(world.socket);
      await new Promise<void>((r) => sock.once('connect', r));
      sock.pause(); // read nothing until the core held calls back
      const encode = (m: pb.SessionClientMessage) => frame(SessionClientMessage.encode(m).finish());
      sock.write(SESSION_PREFACE);
      sock.write(encode({ hello: { caller: 'sloth', pid: process.pid, clientName: 'sloth', previousSessionId: '' } }));
      for (let id = 1; id <= CALLS; id++) sock.write(encode(bigCall(id)));
      await untilHeldBack();

      const reader = new FrameReader();
      let answers = 0;
      sock.on('data', (chunk: Buffer) => {
        for (const f of reader.push(chunk)) {
          const r = SessionServerMessage.decode(f).response;
          if (!r) continue;
          checkAnswer(r);
          answers++;
        }
      });
      sock.resume();
      await waitFor('every call to be answered once the client reads', () => answers === CALLS, 120_000);
      sock.destroy();

      const after = await sessionMetrics(url);
      expect(after.peak).toBeLessThanOrEqual(MOST_UNREAD);
      // Read before any answer, all calls arrived at once: all but the first window waited.
      expect(after.deferred - before.deferred).toBeGreaterThanOrEqual(CALLS - FIRST_WINDOW);
    },
  );

  it('gRPC Session: the same bound holds, counted in bytes although grpc-js streams count messages', { timeout: 180_000 }, async () => {
    const before = await sessionMetrics(url);
    const call = world.control().session();
    // Any error ends the wait below with its reason; without a listener it would surface as an unhandled error.
    let failed: Error | undefined;
    call.on('error', (err: Error) => (failed = err));
    let ended = false;
    call.on('status', () => (ended = true));
    call.pause();
    call.write({ hello: { caller: 'sloth-grpc', pid: process.pid, clientName: 'sloth', previousSessionId: '' } });
    for (let id = 1; id <= CALLS; id++) call.write(bigCall(id));
    await untilHeldBack();

    let answers = 0;
    call.on('data', (m: pb.SessionServerMessage) => {
      if (!m.response) return;
      checkAnswer(m.response);
      answers++;
    });
    call.resume();
    const unlessFailed = (done: () => boolean) => () => {
      if (failed) throw failed;
      return done();
    };
    await waitFor(
      'every call to be answered once the client reads',
      unlessFailed(() => answers === CALLS),
      120_000,
    );
    // The core ends the call once the client has; the test is over only then, so stopping the core at
    // clean-up cannot drop a call still open.
    call.end();
    await waitFor(
      'the core to end the Session after the client did',
      unlessFailed(() => ended),
    );

    const after = await sessionMetrics(url);
    expect(after.peak).toBeLessThanOrEqual(MOST_UNREAD);
    expect(after.deferred - before.deferred).toBeGreaterThan(0);
  });
});

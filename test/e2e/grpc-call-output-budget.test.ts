import type { ClientReadableStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { rssMiB, peakRssMiB } from '../support/memory.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const MiB = 1024 * 1024;
/** The output budget of this core (runtime.yaml sessionOutboundBytes, the default). */
const BUDGET = 8 * MiB;
const RESULT_MIB = 4;
const CALLS = 100;

/**
 * gRPC CallTool streams pipelined on one connection by a client that reads none of them: the core starts
 * calls only while the connection's unread output (plus what running calls are expected to answer) fits the
 * Session's budget. Unbounded (the probe), 100 unread 4 MiB results took the core from 84 to 675 MiB.
 */
describe('gRPC CallTool streams share the Session output budget per connection', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300, maxConcurrent: 64 }, { FIXTURE_FAULT_TOOLS: '1' })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': `metricsAddress: ""\nsessionOutboundBytes: ${BUDGET}\n`,
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('holds calls back while the client does not read, then answers every one in full', { timeout: 240_000 }, async () => {
    const core = world.cores[0]!;
    const pid = core.pid ?? 0;
    const grpc = createControlClient(world.socket);
    try {
      // A first call warms the pool (its server's start is not what is measured).
      await collect(grpc.callTool(request(0.001)));
      const base = rssMiB(pid);
      const streams = Array.from({ length: CALLS }, () => {
        const s = grpc.callTool(request(RESULT_MIB));
        s.pause();
        return s;
      });
      await waitFor('the core to hold calls back', () =>
        world.coreLog.join('').includes('gRPC call output over its budget; further calls on the connection wait until it is read'),
      );
      const sizes = await Promise.all(streams.map((s) => collect(s)));
      expect(sizes.every((n) => n > RESULT_MIB * MiB)).toBe(true);
      // The budget, a first window of answers (4 MiB each) and their copies on the way out: 190–217 MiB here,
      // whatever the number of calls; unbounded, 100 answers took the core up by 591 MiB (the probe).
      expect(peakRssMiB(pid) - base).toBeLessThan(300);
    } finally {
      grpc.close();
    }
  });
});

function request(mb: number): pb.CallToolRequest {
  return {
    caller: 'sloth',
    name: 'fx__big',
    argumentsJson: Buffer.from(JSON.stringify({ mb })),
    routingKey: '',
    timeoutMs: 0,
  };
}

/** Reads a CallTool stream to its end; the size of its result's JSON. */
function collect(s: ClientReadableStream<pb.CallToolEvent>): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0;
    s.on('data', (m: pb.CallToolEvent) => {
      size = Math.max(size, m.resultJson?.length ?? 0);
    });
    s.on('end', () => resolve(size));
    s.on('error', reject);
    s.resume();
  });
}

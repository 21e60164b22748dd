import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { credentials, type ClientReadableStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { grpcAddress } from '../../internal/contract/session/socket-path.js';
import { TestWorld } from '../support/core-process.js';
import { peakRssMiB, rssMiB } from '../support/memory.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { profile, server } from '../support/profiles.js';
import { shiftingTool } from '../support/shifting-tools.js';

const MiB = 1024 * 1024;
/** The output budget of this core (runtime.yaml sessionOutboundBytes, the default). */
const BUDGET = 8 * MiB;
const LOG_STREAMS = 40;
const WATCH_STREAMS = 40;
/** Log entries of about 1 MiB each (their `data`), produced while no stream is read. */
const ENTRIES = 20;
/** Tool lists of about 256 KiB, each replacing the last, produced while no stream is read. */
const SHIFTS = 8;
const LOGGER = resolve(FIXTURES, 'servers/logger.mjs');
const SHIFTING = resolve(FIXTURES, 'servers/shifting-tools.mjs');

/**
 * Watch and log streams on one gRPC connection whose client reads none of them, while the core produces
 * large items: the streams share the Session's output budget per stream and per connection. Before, each
 * stream let grpc-js buffer 16 messages (it counts messages, not bytes): every log stream held 16 copies of
 * its 1 MiB entries, whatever the budget.
 */
describe('gRPC watch and log streams share the Session output budget per connection', () => {
  let world: TestWorld;
  let toolsFile: string;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers: {}\n', 'runtime.yaml': `metricsAddress: ""\nsessionOutboundBytes: ${BUDGET}\n` });
    toolsFile = join(world.dir, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify([shiftingTool('v0', 'small')]));
    world.write(
      'profiles/default.yaml',
      profile(
        server('lg', [process.execPath, LOGGER], { idleSeconds: 300 }),
        server('p', [process.execPath, SHIFTING], { idleSeconds: 300 }, { SHIFTING_TOOLS_FILE: toolsFile }),
      ),
    );
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('WatchRuntimeStatus, piped the same way, sends the current status to a client that reads', { timeout: 120_000 }, async () => {
    const s = world.control().watchRuntimeStatus({});
    try {
      const first = await new Promise<pb.RuntimeStatus>((resolve, reject) => {
        s.once('data', resolve);
        s.once('error', reject);
      });
      expect(first.configDir).toBe(world.configDir);
    } finally {
      s.cancel();
    }
  });

  it(
    'holds what a non-reading client would get, keeps the newest snapshot and every entry, RSS bounded',
    { timeout: 300_000 },
    async () => {
      const pid = world.cores[0]?.pid ?? 0;
      // Calls that produce go through mcpdmcp (a connection of its own); the idle client has its own too.
      const producer = await world.gateway('sloth');
      await producer.callTool({ name: 'lg__log', arguments: { level: 'debug', data: 'warm' } });
      const idle = ownConnection(world.socket);
      const streams: Tracked[] = [];
      try {
        const logs = Array.from({ length: LOG_STREAMS }, () => paused(idle.streamLogs({ caller: 'sloth', minLevel: 'debug' })));
        const watches = Array.from({ length: WATCH_STREAMS }, () => paused(idle.watchTools({ caller: 'sloth', lastEtag: '' })));
        streams.push(...logs, ...watches);
        // Log streams start with the backlog and watches with the current list: opened late, they miss nothing.
        const base = rssMiB(pid);

        const big = 'x'.repeat(MiB);
        for (let i = 1; i <= ENTRIES; i++) await producer.callTool({ name: 'lg__log', arguments: { level: 'debug', data: `${i}:${big}` } });
        for (let i = 1; i <= SHIFTS; i++) {
          writeFileSync(toolsFile, JSON.stringify(bigTools(i)));
          await producer.callTool({ name: 'p__notify', arguments: {} });
        }
        await waitFor('the core to hold streams back', () => world.coreLog.join('').includes('gRPC stream output over its budget'));

        // Now read: every log stream gets every entry, every watch ends on the newest list.
        for (const s of [...logs, ...watches]) s.stream.resume();
        await waitFor('every log stream to get every entry', () => logs.every((s) => s.bigItems >= ENTRIES), 240_000);
        await waitFor('every watch to reach the newest list', () => watches.every((s) => s.last.includes(`v${SHIFTS}_0`)), 240_000);
        const snapshots = watches.reduce((n, s) => n + s.bigItems, 0);
        // Coalesced: held watches skipped to the newest list rather than queueing each one.
        expect(snapshots).toBeLessThan(WATCH_STREAMS * SHIFTS);
        // Measured on a loaded 2-core machine: about 110 MiB for producing alone (no stream open), about 210 with
        // these streams; 490 before, when each log stream held up to 16 entries of its own.
        expect(peakRssMiB(pid) - base).toBeLessThan(300);
      } finally {
        // Client.close() lets open calls run on; the core's graceful stop would wait for them.
        for (const s of streams) s.stream.cancel();
        idle.close();
      }
    },
  );
});

/** A client on a connection of its own (grpc-js shares one between clients of the same target and options). */
function ownConnection(socket: string): ControlPlaneClient {
  return new ControlPlaneClient(grpcAddress(socket), credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': 64 * MiB,
  });
}

interface Tracked {
  stream: ClientReadableStream<pb.LogEntry | pb.ToolsSnapshot>;
  /** Items of 1 MiB or more received. */
  bigItems: number;
  /** The tool names of the last snapshot (watches). */
  last: string;
}

/** A stream nobody reads until `stream.resume()`; counts what then arrives. */
function paused(stream: ClientReadableStream<pb.LogEntry | pb.ToolsSnapshot>): Tracked {
  const t: Tracked = { stream, bigItems: 0, last: '' };
  stream.pause();
  stream.on('data', (m: pb.LogEntry | pb.ToolsSnapshot) => {
    if ('tools' in m) {
      t.last = m.tools.map((x) => x.name).join(',');
      if (m.tools.reduce((n, x) => n + x.toolJson.length, 0) >= MiB / 8) t.bigItems++;
    } else if (m.fieldsJson.length >= MiB) t.bigItems++;
  });
  stream.on('error', () => undefined);
  return t;
}

/** About 256 KiB of tools, named for `i` so each list differs. */
function bigTools(i: number): ReturnType<typeof shiftingTool>[] {
  return Array.from({ length: 32 }, (_, k) => shiftingTool(`v${i}_${k}`, `${i}`.padEnd(8 * 1024, '.')));
}

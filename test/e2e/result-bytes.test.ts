import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGrpcSession } from '../../internal/contract/grpc/grpc-session.js';
import { SessionClient, type RawCallHandlers } from '../../internal/contract/session/session-client.js';
import type { McpdError } from '../../internal/shared/errors.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPDMCP } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

const RAW_SERVER = join(FIXTURES, 'servers/raw-result.mjs');
const BIG = '{"name":"raw__big","arguments":{"mb":4}}';

const hello = (caller: string) => ({ caller, pid: process.pid, clientName: 'result-bytes', previousSessionId: '' });

/** A call on the Session's raw lane (what mcpdmcp does): the result's bytes as the core sent them. */
function rawCall(s: SessionClient, paramsJson: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const handlers: RawCallHandlers = {
      result: (b) => resolve(Buffer.from(b)),
      error: (e: McpdError) => reject(e),
      progress: () => {},
    };
    s.startRaw('tools/call', paramsJson, handlers);
  });
}

/**
 * A 4 MiB tool result crosses the core (and mcpdmcp) as the very bytes the server wrote: its spacing and
 * key order, and a byte that is not UTF-8 — which decoding the result to a string (then parsing and
 * serialising it) would have replaced with U+FFFD. So nothing on the way decodes or rebuilds it.
 */
describe('a tool result passes through as the server wrote it', () => {
  let world: TestWorld;
  let written: string;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers: {}\n' });
    written = join(world.dir, 'written.bin');
    world.write(
      'profiles/default.yaml',
      profile(server('raw', [process.execPath, RAW_SERVER], { idleSeconds: 300 }, { RAW_RESULT_FILE: written })),
    );
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  const serverWrote = () => readFileSync(written);

  it('on the framed Session, both on the fast lane and on the full path (a progress token)', async () => {
    const s = await SessionClient.connect(world.socket, hello('framed'));
    try {
      const lane = await rawCall(s, BIG);
      expect(lane.length).toBeGreaterThan(4 * 1024 * 1024);
      expect(lane.equals(serverWrote())).toBe(true);
      const full = await rawCall(s, '{"name":"raw__big","arguments":{"mb":4},"_meta":{"progressToken":"p1"}}');
      expect(full.equals(serverWrote())).toBe(true);
    } finally {
      s.close();
    }
  });

  it('on the gRPC Session', async () => {
    const s = await openGrpcSession(world.control(), hello('grpc'));
    try {
      const bytes = await s.requestRaw('tools/call', Buffer.from(BIG));
      expect(bytes.equals(serverWrote())).toBe(true);
    } finally {
      s.close();
    }
  });

  it('on to the MCP client, through mcpdmcp, inside its JSON-RPC envelope', async () => {
    const gw = spawn(process.execPath, [MCPDMCP, 'wire', '--socket', world.socket, '--no-autostart'], { env: world.env(), stdio: 'pipe' });
    try {
      const chunks: Buffer[] = [];
      const answered = new Promise<Buffer>((resolve) => {
        gw.stdout.on('data', (d: Buffer) => {
          chunks.push(d);
          const all = Buffer.concat(chunks);
          const start = all.indexOf('{"jsonrpc":"2.0","id":7,');
          const end = start < 0 ? -1 : all.indexOf('\n', start);
          if (end >= 0) resolve(all.subarray(start, end + 1));
        });
      });
      const send = (m: object) => gw.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
      send({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire', version: '1' } },
      });
      send({ method: 'notifications/initialized' });
      gw.stdin.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${BIG}}\n`);
      const line = await answered;
      const expected = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":7,"result":'), serverWrote(), Buffer.from('}\n')]);
      expect(line.equals(expected)).toBe(true);
    } finally {
      gw.stdin.end();
      await new Promise((r) => (gw.exitCode !== null ? r(null) : gw.once('exit', r)));
    }
  });
});

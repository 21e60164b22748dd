import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { echoServer, profile } from '../support/profiles.js';

const SECRET = 'sk-live-credential-4242424242';

/**
 * A server's `isError` tool result that echoes the server's own credential (its env) reaches no client
 * unmasked, as a JSON-RPC error carrying it would not: through the gateway (the Session's byte path) and
 * over gRPC CallTool.
 */
describe('isError tool results are masked like errors', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 }, { FIXTURE_FAULT_TOOLS: '1', API_KEY: SECRET })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('through mcpdmcp', async () => {
    const client = await world.gateway('dev');
    const r = await client.callTool({ name: 'fx__fail', arguments: { env: 'API_KEY' } });
    expect(r.isError).toBe(true);
    const text = JSON.stringify(r);
    expect(text).toContain('upstream refused the key ***');
    expect(text).not.toContain(SECRET);
  });

  it('over gRPC CallTool', async () => {
    const grpc = createControlClient(world.socket);
    try {
      const events: string[] = [];
      await collectStream(
        grpc.callTool({ caller: 'dev', name: 'fx__fail', argumentsJson: Buffer.from('{"env":"API_KEY"}'), routingKey: '', timeoutMs: 0 }),
        (e) => events.push(e.resultJson?.toString('utf8') ?? ''),
      );
      const text = events.join('\n');
      expect(text).toContain('upstream refused the key ***');
      expect(text).not.toContain(SECRET);
    } finally {
      grpc.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AREAS } from '../contract/areas/all-areas.js';
import { isAbsent, type AreaMethod } from '../contract/areas/area.js';
import { assertAdaptersServed, GATEWAY_METHODS } from './gateway-methods.js';
import { Gateway } from './mcp-gateway.js';

const methods: AreaMethod[] = AREAS.flatMap((a) => a.methods);

/** The gateway's projection of the areas (internal/contract/areas/): its one dispatcher's method list. */
describe('control-plane areas in the gateway', () => {
  it('serve every method the areas declare for the gateway, from the one list', () => {
    const declared = methods.filter((m) => !isAbsent(m.gateway)).map((m) => m.name);
    expect(declared.length).toBeGreaterThan(8);
    expect([...GATEWAY_METHODS].sort()).toEqual(declared.sort());
  });

  it('forward every method declared for the gateway from an MCP client to the core', async () => {
    // Valid params per method: a method added to an area without a line here fails this test.
    const samples: Record<string, Record<string, unknown>> = {
      'tools/list': {},
      'tools/call': { name: 'srv__tool', arguments: {} },
      'resources/list': {},
      'resources/templates/list': {},
      'resources/read': { uri: 'demo://x' },
      'resources/subscribe': { uri: 'demo://x' },
      'resources/unsubscribe': { uri: 'demo://x' },
      'prompts/list': {},
      'prompts/get': { name: 'srv__prompt' },
      'completion/complete': { ref: { type: 'ref/prompt', name: 'srv__prompt' }, argument: { name: 'a', value: '' } },
      'logging/setLevel': { level: 'info' },
    };
    const declared = methods.filter((m) => !isAbsent(m.gateway)).map((m) => m.name);
    expect(Object.keys(samples).sort()).toEqual([...declared].sort());
    // No core behind it: a request that reaches the forward fails with the gateway's "no core" error,
    // where a missing handler would be "Method not found" and the SDK's own setLevel would succeed.
    const gateway = new Gateway({ caller: 'alice', socket: '/nonexistent/mcpd.sock', version: '0.0.0', coreWaitMs: 1, log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'areas-test', version: '1' });
    try {
      await gateway.connect(serverSide);
      await client.connect(clientSide);
      for (const name of declared) {
        const failure = await client.request({ method: name, params: samples[name] } as never, EmptyResultSchema).then(
          () => new Error('answered'),
          (e: unknown) => e as Error,
        );
        expect(failure.message, name).toMatch(/no mcpd core reachable at \/nonexistent\/mcpd\.sock/);
      }
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('refuse, at gateway startup, an adapter for a method no area declares for the gateway', () => {
    expect(() => assertAdaptersServed(['tools/list', 'mcpd/desktop/read'])).toThrow(
      /gateway adapter for mcpd\/desktop\/read, which no area declares for the gateway/,
    );
    expect(() => assertAdaptersServed(GATEWAY_METHODS)).not.toThrow();
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPDMCP } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

const STEPS = 50;
const CALLS = 8;
const CLIENTS = 2;

/**
 * A stock MCP SDK client over stdio, nothing between its transport and its Protocol: the SDK drops a
 * progress notification it reads in the same chunk as the call's result, so every step arriving before
 * the call resolves shows that the gateway's answer never reaches the client in the read that carries
 * the call's last progress (gateway/progress-spacing.ts). The server sends its 50 steps back to back,
 * then the result.
 */
describe('progress reaches a stock SDK client over stdio whole', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('echo', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  for (let c = 1; c <= CLIENTS; c++) {
    it(`client ${c}: ${CALLS} calls, each sees ${STEPS} of ${STEPS} progress notifications before it resolves`, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MCPDMCP, 'default', '--socket', world.socket, '--config', world.configDir],
        env: world.env() as Record<string, string>,
        stderr: 'pipe',
      });
      const client = new Client({ name: `stock-${c}`, version: '1.0.0' });
      const errors: string[] = [];
      client.onerror = (e) => errors.push(e.message);
      await client.connect(transport);
      try {
        const seen: number[] = [];
        for (let i = 0; i < CALLS; i++) {
          const progress: number[] = [];
          const result = await client.callTool({ name: 'echo__slow', arguments: { steps: STEPS, ms: 0 } }, undefined, {
            onprogress: (p) => progress.push(p.progress),
          });
          expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
          seen.push(progress.length);
          expect(progress).toEqual(Array.from({ length: STEPS }, (_, k) => k + 1));
        }
        expect(seen).toEqual(Array.from({ length: CALLS }, () => STEPS));
        expect(errors).toEqual([]);
      } finally {
        await client.close();
      }
    });
  }
});

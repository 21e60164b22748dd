import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { McpdError } from '../../internal/shared/errors.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { openGrpcSession } from '../../internal/contract/grpc/grpc-session.js';
import { TestWorld } from '../support/core-process.js';
import { echoServer, profile } from '../support/profiles.js';

const hello = (caller: string) => ({ caller, pid: process.pid, clientName: 'hostile', previousSessionId: '' });

/** Names an object lookup might resolve through the prototype chain ("constructor" killed the core). */
const INHERITED = [...Object.getOwnPropertyNames(Object.prototype), 'prototype', '__defineGetter__'];

const METHODS = fc.oneof(
  fc.constantFrom(...INHERITED),
  fc.constantFrom('tools/list', 'tools/call', 'ping', 'resources/read', 'prompts/get', 'logging/setLevel', 'resources/subscribe'),
  fc.string(),
);
/** Params bytes: valid objects, other JSON, and garbage. */
const PARAMS = fc.oneof(
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  fc
    .dictionary(fc.constantFrom(...INHERITED, 'name', 'cursor', 'uri', 'arguments', 'level'), fc.jsonValue())
    .map((o) => Buffer.from(JSON.stringify(o))),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

describe('hostile Session requests never end the core', () => {
  let world: TestWorld;
  let core: ChildProcess;
  let client: ControlPlaneClient;
  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    core = await world.startCore();
    client = world.control();
  });
  afterAll(async () => world.cleanup());

  const open = (transport: 'framed' | 'grpc', caller: string) =>
    transport === 'framed' ? SessionClient.connect(world.socket, hello(caller)) : openGrpcSession(client, hello(caller));

  for (const transport of ['framed', 'grpc'] as const) {
    it(`answers inherited property names as unknown methods over the ${transport} Session`, async () => {
      const s = await open(transport, `inherit-${transport}`);
      try {
        for (const method of INHERITED) {
          await expect(s.request(method, {}), method).rejects.toMatchObject({ reason: 'NOT_FOUND' });
        }
        expect(await s.request('ping', {})).toEqual({});
      } finally {
        s.close();
      }
      expect(core.exitCode).toBeNull();
    });

    it(`survives fuzzed method names and params over the ${transport} Session`, async () => {
      const s = await open(transport, `fuzz-${transport}`);
      try {
        await fc.assert(
          fc.asyncProperty(METHODS, PARAMS, async (method, params) => {
            const outcome = await s.requestRaw(method, params, { timeoutMs: 5000 }).then(
              () => 'ok',
              (e: unknown) => e,
            );
            // Either an answer or one of our errors — never a dropped session or a dead core.
            if (outcome !== 'ok') expect(outcome).toBeInstanceOf(McpdError);
            expect(core.exitCode).toBeNull();
          }),
          { numRuns: Number(process.env.MCPD_FUZZ_RUNS ?? 300), verbose: true },
        );
        expect(await s.request('ping', {})).toEqual({});
        // Every request's failure was answered on its path; none reached the last-resort handler.
        expect(world.coreLog.join('')).not.toContain('unhandled rejection');
      } finally {
        s.close();
      }
    });
  }
});

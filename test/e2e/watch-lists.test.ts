import type { ClientReadableStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { ControlCalls, callUnary } from '../../internal/contract/grpc/control-client.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { TestWorld } from '../support/core-process.js';
import { everythingServer, profile } from '../support/profiles.js';

/** The first message of a server stream, then the stream is cancelled. */
function first<T>(s: ClientReadableStream<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    s.once('data', (m: T) => {
      s.cancel();
      resolve(m);
    });
    s.on('error', (e: { code?: number }) => {
      if (e.code !== 1) reject(e as Error); // 1 = CANCELLED, our own cancel
    });
    s.on('end', () => reject(new Error('the watch ended without a message')));
  });
}

/** Every watch RPC over real gRPC on a core that has listed nothing yet. */
describe('WatchTools / WatchResources / WatchPrompts on a fresh core', () => {
  let world: TestWorld;
  let client: ControlPlaneClient;
  let calls: ControlCalls;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('every', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = world.control();
    calls = world.calls();
  });
  afterAll(async () => world.cleanup());

  it('WatchTools starts with the caller’s loaded list, the one ListTools returns', async () => {
    const snap = await first(client.watchTools({ caller: 'watcher', lastEtag: '' }));
    expect(snap.tools.map((t) => t.name)).toContain('every__echo');
    const listed = await calls.listTools({ caller: 'watcher', cursor: '', pageSize: 1000 });
    expect(snap.etag).toBe(listed.etag);
  });

  it('WatchResources starts with the loaded list, not an empty one', async () => {
    const snap = await first(client.watchResources({ caller: 'watcher', lastEtag: '' }));
    expect(snap.resources.length).toBeGreaterThan(0);
    const listed = await callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((r, cb) => client.listResources(r, cb), {
      caller: 'watcher',
      cursor: '',
      pageSize: 0,
    });
    expect(snap.etag).toBe(listed.etag);
  });

  it('WatchPrompts starts with the loaded list, not an empty one', async () => {
    const snap = await first(client.watchPrompts({ caller: 'watcher', lastEtag: '' }));
    expect(snap.prompts.map((p) => p.name)).toContain('every__simple-prompt');
    const listed = await callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((r, cb) => client.listPrompts(r, cb), {
      caller: 'watcher',
      cursor: '',
      pageSize: 0,
    });
    expect(snap.etag).toBe(listed.etag);
  });
});

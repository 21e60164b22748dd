import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import { McpdError } from '../../internal/shared/errors.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

const STATIC_URI = 'demo://resource/static/document/instructions.md';
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const WATCHED = 'demo://resource/dynamic/text/1';
const DOCS = join(DIST, 'cmd/mcpd-docs/main.js');

type Contents = { contents: { uri: string; text?: string; blob?: string }[] };

/** A Finder document server (serves dpe://library/...) over an empty folder: enough to route and to answer 4201. */
function docsServer(dir: string): string {
  return [
    '  - name: library',
    `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(DOCS)}, --host, library, ${JSON.stringify(dir)}]`,
    '    env:',
    '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
    '',
  ].join('\n');
}

function rpcError(e: unknown): McpError {
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

describe('resources through the core and the gateway', () => {
  let world: TestWorld;
  let one: Client;
  let two: Client;
  const updates: Record<string, string[]> = { one: [], two: [] };
  const logCount = (event: string) =>
    world.coreLog
      .join('')
      .split('\n')
      .filter((l) => l.includes(`"event":"${event}"`) && l.includes(WATCHED)).length;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers:\n  one: default\n  two: default\n' });
    const docsDir = join(world.dir, 'docs');
    mkdirSync(docsDir, { recursive: true });
    // One instance at most, so the tool call that starts updates reaches the instance holding the subscription.
    world.write('profiles/default.yaml', profile(everythingServer('every', { maxInstances: 1, idleSeconds: 300 }), docsServer(docsDir)));
    await world.startCore();
    one = await world.gateway('one');
    two = await world.gateway('two');
    for (const [name, c] of [
      ['one', one],
      ['two', two],
    ] as const) {
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates[name]?.push(n.params.uri));
    }
  });
  afterAll(async () => world.cleanup());

  it('lists the static resources and the templates of the profile', async () => {
    const list = await one.listResources();
    expect(list.resources.map((r) => r.uri)).toContain(STATIC_URI);
    const templates = await one.listResourceTemplates();
    const uris = templates.resourceTemplates.map((t) => t.uriTemplate);
    expect(uris).toContain(TEXT_TEMPLATE);
    expect(uris).toContain('dpe://library/{doc_ref}/pages/{page_index}');
  });

  it('reads a static URI and a URI matched by a template', async () => {
    const s = (await one.readResource({ uri: STATIC_URI })) as Contents;
    expect(s.contents[0]?.uri).toBe(STATIC_URI);
    expect(s.contents[0]?.text?.length).toBeGreaterThan(0);
    const d = (await one.readResource({ uri: 'demo://resource/dynamic/text/42' })) as Contents;
    expect(d.contents[0]?.text).toMatch(/^Resource 42: /);
  });

  it('answers an unknown URI with an error naming it', async () => {
    const e = rpcError(await one.readResource({ uri: 'nowhere://x/1' }).catch((x: unknown) => x));
    expect(e.message).toMatch(/no resource "nowhere:\/\/x\/1" in profile "default"/);
  });

  it("rejects a malformed dpe:// URI with 4204 before any routing, and passes the server's 4201 through unchanged", async () => {
    const bad = rpcError(await one.readResource({ uri: 'dpe://library/doc/pages/01' }).catch((x: unknown) => x));
    expect(bad.code).toBe(4204);
    expect(bad.message).toMatch(/rule 3/);
    expect((bad.data as { details?: { rule?: number } }).details?.rule).toBe(3);
    const missing = rpcError(await one.readResource({ uri: 'dpe://library/no-such-doc' }).catch((x: unknown) => x));
    expect(missing.code).toBe(4201);
    const nobody = rpcError(await one.readResource({ uri: 'dpe://elsewhere/doc' }).catch((x: unknown) => x));
    expect(nobody.message).toMatch(/no server in profile "default" serves dpe:\/\/elsewhere/);
  });

  it('forwards resources/list_changed when a server adds a resource, and lists it', async () => {
    let nudged = 0;
    one.setNotificationHandler(ResourceListChangedNotificationSchema, () => void nudged++);
    const before = (await one.listResources()).resources.map((r) => r.uri);
    // server-everything registers the gzipped file as a new session resource and announces the change.
    await one.callTool({
      name: 'every__gzip-file-as-resource',
      arguments: { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resourceLink' },
    });
    await waitFor('resources/list_changed at the client', () => nudged > 0);
    const after = (await one.listResources()).resources.map((r) => r.uri);
    const added = after.filter((u) => !before.includes(u));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/hello\.gz$/);
  });

  it('shares one downstream subscription between two callers, delivers updates to both, and unsubscribes when both leave', async () => {
    await one.subscribeResource({ uri: WATCHED });
    await two.subscribeResource({ uri: WATCHED });
    await waitFor('the downstream subscription', () => logCount('resource subscription opened downstream') >= 1);
    expect(logCount('resource subscription opened downstream')).toBe(1);
    // server-everything sends updates for subscribed URIs once this tool is on (at once, then every 5 s).
    await one.callTool({ name: 'every__toggle-subscriber-updates', arguments: {} });
    await waitFor('an update at both clients', () => !!updates.one?.includes(WATCHED) && !!updates.two?.includes(WATCHED), 20_000);
    await one.unsubscribeResource({ uri: WATCHED });
    expect(logCount('resource subscription closed downstream')).toBe(0);
    await two.unsubscribeResource({ uri: WATCHED });
    await waitFor('the downstream unsubscribe', () => logCount('resource subscription closed downstream') === 1);
    expect(logCount('resource subscription opened downstream')).toBe(1);
  });

  it("ends a session's subscriptions when its gateway goes away", async () => {
    const opened = logCount('resource subscription opened downstream');
    const closed = logCount('resource subscription closed downstream');
    const three = await world.gateway('three');
    await three.subscribeResource({ uri: WATCHED });
    await waitFor('a new downstream subscription', () => logCount('resource subscription opened downstream') === opened + 1);
    await three.close();
    await waitFor(
      'the downstream unsubscribe after the session ended',
      () => logCount('resource subscription closed downstream') === closed + 1,
    );
  });

  it('serves ReadResource over gRPC with the Finder codes in the status metadata, and mcpdctl lists and reads', async () => {
    const client = createControlClient(world.socket);
    try {
      const read = (uri: string) =>
        callUnary<pb.ReadResourceRequest, pb.ReadResourceResponse>((r, cb) => client.readResource(r, cb), { caller: 'one', uri });
      const ok = JSON.parse((await read(STATIC_URI)).resultJson.toString('utf8')) as Contents;
      expect(ok.contents[0]?.uri).toBe(STATIC_URI);
      const bad = (await read('dpe://library/x?limit=0').catch((e: unknown) => e)) as McpdError;
      expect(bad).toBeInstanceOf(McpdError);
      expect([bad.reason, bad.details.specCode]).toEqual(['INVALID_ARGUMENT', 4204]);
      const missing = (await read('dpe://library/no-such-doc').catch((e: unknown) => e)) as McpdError;
      expect([missing.reason, missing.details.specCode]).toEqual(['DOWNSTREAM_ERROR', 4201]);
    } finally {
      client.close();
    }
    const env = world.env();
    const listed = JSON.parse(
      execFileSync(process.execPath, [MCPDCTL, '--socket', world.socket, '--json', 'resources', 'one'], { env, encoding: 'utf8' }),
    ) as { resources: { uri: string }[] };
    expect(listed.resources.map((r) => r.uri)).toContain(STATIC_URI);
    const text = execFileSync(process.execPath, [MCPDCTL, '--socket', world.socket, 'read', 'one', 'demo://resource/dynamic/text/7'], {
      env,
      encoding: 'utf8',
    });
    expect(text).toMatch(/^Resource 7: /);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_META } from '../../internal/contract/areas/params.js';
import { callUnary } from '../../internal/contract/grpc/control-client.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import type { TestWorld } from '../support/core-process.js';
import { startLateWorld } from '../support/late-world.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { everythingServer } from '../support/profiles.js';

const LATE_URI = 'fixture://marker';

/** The three lists one MCP client holds, and the change notifications it heard. */
interface Lists {
  prompts: ListPromptsResult;
  resources: ListResourcesResult;
  templates: ListResourceTemplatesResult;
}

async function listAll(client: Client): Promise<Lists> {
  return {
    prompts: await client.listPrompts(),
    resources: await client.listResources(),
    templates: await client.listResourceTemplates(),
  };
}

/** Resolves once the client heard prompts and resources list_changed. */
function changes(client: Client): Promise<unknown> {
  const prompts = new Promise<void>((r) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => r()));
  const resources = new Promise<void>((r) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => r()));
  return Promise.all([prompts, resources]);
}

/** Only the healthy server's entries, and the late one named as pending, on each of the three lists. */
function expectWithoutLate(l: Lists): void {
  expect(l.prompts.prompts.some((p) => p.name.startsWith('healthy__'))).toBe(true);
  expect(l.prompts.prompts.some((p) => p.name.startsWith('late__'))).toBe(false);
  expect(l.resources.resources.length).toBeGreaterThan(0);
  expect(l.resources.resources.some((r) => r.uri === LATE_URI)).toBe(false);
  expect(l.templates.resourceTemplates.length).toBeGreaterThan(0);
  expect(l.templates.resourceTemplates.some((t) => t.uriTemplate.startsWith(LATE_URI))).toBe(false);
  for (const page of [l.prompts, l.resources, l.templates]) expect(page._meta?.[PENDING_META]).toEqual(['late']);
}

function expectWithLate(l: Lists): void {
  expect(l.prompts.prompts.map((p) => p.name)).toContain('late__marker');
  expect(l.prompts.prompts.some((p) => p.name.startsWith('healthy__'))).toBe(true);
  expect(l.resources.resources.map((r) => r.uri)).toContain(LATE_URI);
  expect(l.templates.resourceTemplates.map((t) => t.uriTemplate)).toContain(`${LATE_URI}/{part}`);
  for (const page of [l.prompts, l.resources, l.templates]) expect(page._meta?.[PENDING_META]).toBeUndefined();
}

/**
 * A caller whose profile has a healthy server (server-everything) and one that does not answer `initialize`
 * until the test says so: prompts, resources and templates answer within the listing budget with the
 * healthy server's entries and name the late one — through mcpdmcp on stdio and over --http (stock SDK
 * clients), and on gRPC — and list_changed brings the late server's entries when it answers.
 */
describe('prompts and resources listings answer within their budget and name the servers still starting', () => {
  let world: TestWorld;
  let release: () => void;
  let http: HttpGatewayProc | undefined;

  beforeAll(async () => {
    ({ world, release } = await startLateWorld(everythingServer('healthy', { idleSeconds: 300 }), { lateServer: 'marker.mjs' }));
  });
  afterAll(async () => {
    if (http) await stopProc(http.proc);
    await world.cleanup();
  });

  it('stdio, --http and gRPC get the ready entries and the pending names; list_changed brings the rest', { timeout: 120_000 }, async () => {
    const stdio = await world.gateway('alice');
    const stdioChanged = changes(stdio);
    expectWithoutLate(await listAll(stdio));

    http = await startWorldHttpGateway(world, 'alice');
    const viaHttp = new Client({ name: 'listing-http', version: '1.0.0' });
    await viaHttp.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    world.clients.push(viaHttp);
    const httpChanged = changes(viaHttp);
    expectWithoutLate(await listAll(viaHttp));

    const control = world.control();
    const req = { caller: 'alice', cursor: '', pageSize: 0 };
    const prompts = await callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((r, cb) => control.listPrompts(r, cb), req);
    const resources = await callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((r, cb) => control.listResources(r, cb), req);
    const templates = await callUnary<pb.ListResourceTemplatesRequest, pb.ListResourceTemplatesResponse>(
      (r, cb) => control.listResourceTemplates(r, cb),
      req,
    );
    expect(prompts.prompts.some((p) => p.server === 'healthy')).toBe(true);
    expect(prompts.prompts.some((p) => p.server === 'late')).toBe(false);
    for (const page of [prompts, resources, templates]) expect(page.pending).toEqual(['late']);

    release();
    await Promise.all([stdioChanged, httpChanged]);
    expectWithLate(await listAll(stdio));
    expectWithLate(await listAll(viaHttp));
    const after = await callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((r, cb) => control.listPrompts(r, cb), req);
    expect(after.prompts.some((p) => p.server === 'late')).toBe(true);
    expect(after.pending).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, FIXTURES, MCPDCTL, MCPDMCP } from '../support/paths.js';
import { cmdline } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

/**
 * The operator sees what the client sees, and the context channels appear only where they can return
 * something: "docs" has a dpe:// server (mcpd-docs) and no window:// one; "plain" has neither.
 */
describe('context tools and resources: one view, only where they have content', () => {
  let world: TestWorld;
  const ctl = async (...args: string[]) =>
    (await run(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env: world.env() })).stdout;
  beforeAll(async () => {
    const docs = `  - name: docs\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(DIST, 'cmd/mcpd-docs/main.js'))}, ${JSON.stringify(join(FIXTURES, 'docs'))}]\n    idleSeconds: 300\n`;
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 }), docs),
      'profiles/plain.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: { plain: plain, reader: default }\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('the core itself lists and answers the channels over gRPC, with no gateway running', async () => {
    expect(world.pids().filter((p) => cmdline(p).includes(MCPDMCP))).toEqual([]);
    const control = world.control();
    const caller = 'reader';
    const tools = await world.calls().listTools({ caller, cursor: '', pageSize: 0 });
    expect(tools.tools.filter((t) => t.server === 'mcpd').map((t) => t.name)).toEqual(['mcpd_finder']);
    const resources = await callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((r, cb) => control.listResources(r, cb), {
      caller,
      cursor: '',
      pageSize: 0,
    });
    expect(resources.resources.filter((r) => r.server === 'mcpd').map((r) => r.uri)).toEqual(['mcpd://finder']);
    const templates = await callUnary<pb.ListResourceTemplatesRequest, pb.ListResourceTemplatesResponse>(
      (r, cb) => control.listResourceTemplates(r, cb),
      { caller, cursor: '', pageSize: 0 },
    );
    expect(templates.templates.filter((t) => t.server === 'mcpd').map((t) => t.uriTemplate)).toEqual([
      'mcpd://finder{?keywords,file_type,offset,limit}',
    ]);
    // Read and called through the core alone, as a client's gateway now only forwards them.
    const read = await callUnary<pb.ReadResourceRequest, pb.ReadResourceResponse>((r, cb) => control.readResource(r, cb), {
      caller,
      uri: 'mcpd://finder?limit=1',
    });
    const page = JSON.parse((JSON.parse(read.resultJson.toString('utf8')) as { contents: { text: string }[] }).contents[0]?.text ?? '');
    expect(page).toMatchObject({ documents: [expect.objectContaining({ uri: expect.stringMatching(/^dpe:\/\//) })] });
    expect(page.total_count).toBeGreaterThan(0);
    const called = JSON.parse(await ctl('--json', 'call', caller, 'mcpd_finder', '--args', '{"limit":1}')) as {
      structuredContent: { total_count: number };
    };
    expect(called.structuredContent.total_count).toBe(page.total_count);
    expect(world.pids().filter((p) => cmdline(p).includes(MCPDMCP))).toEqual([]);
  });

  it('a caller with dpe:// documents: mcpd_finder and mcpd://finder, no Desktop — in the client and in mcpdctl alike', async () => {
    const client = await world.gateway('reader');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(tools).toContain('mcpd_finder');
    expect(resources).toContain('mcpd://finder');
    expect(resources).not.toContain('mcpd://desktop');
    expect(templates.some((t) => t.startsWith('mcpd://finder'))).toBe(true);
    expect(templates.some((t) => t.startsWith('mcpd://desktop'))).toBe(false);

    const ctlTools = JSON.parse(await ctl('--json', 'tools', 'reader')) as { tools: { name: string }[] };
    expect(ctlTools.tools.map((t) => t.name).sort()).toEqual([...tools].sort());
    const ctlRes = JSON.parse(await ctl('--json', 'resources', 'reader')) as {
      resources: { uri: string }[];
      templates: { uriTemplate: string }[];
    };
    expect(ctlRes.resources.map((r) => r.uri).sort()).toEqual([...resources].sort());
    expect(ctlRes.templates.map((t) => t.uriTemplate).sort()).toEqual([...templates].sort());
  });

  it('a caller with neither: no context tool or resource anywhere', async () => {
    const client = await world.gateway('plain');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('fx__echo');
    expect(tools).not.toContain('mcpd_finder');
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources.filter((u) => u.startsWith('mcpd://'))).toEqual([]);
    const ctlTools = JSON.parse(await ctl('--json', 'tools', 'plain')) as { tools: { name: string }[] };
    expect(ctlTools.tools.map((t) => t.name).sort()).toEqual([...tools].sort());
    expect(await ctl('resources', 'plain')).not.toMatch(/mcpd:\/\//);
  });
});

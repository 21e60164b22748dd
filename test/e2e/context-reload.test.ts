import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, FIXTURES, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

/** mcpd-docs: a dpe:// server without the tools capability, so only the Finder's tool can change the tool list. */
const docsServer = `  - name: docs\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(DIST, 'cmd/mcpd-docs/main.js'))}, ${JSON.stringify(join(FIXTURES, 'docs'))}]\n    env:\n      MCPD_TEST_TAG: \${MCPD_TEST_TAG}\n    idleSeconds: 300\n`;
const windowServer = `  - name: win\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(FIXTURES, 'servers/window-server.mjs'))}]\n    env:\n      MCPD_TEST_TAG: \${MCPD_TEST_TAG}\n    idleSeconds: 300\n`;

interface View {
  tools: string[];
  resources: string[];
  templates: string[];
}

/**
 * The context channels after a reload: a dpe:// or window:// server that an edit of the store adds to (or
 * removes from) a caller's profile changes the context channels, and the client is told with
 * list_changed — also when no downstream tool changed (mcpd-docs has none) — so that the client's
 * next listing and mcpdctl's agree.
 */
describe('context channels follow reloads of the store', () => {
  let world: TestWorld;
  let client: Client;
  const changes = { tools: 0, resources: 0 };
  const ctl = async (...args: string[]) =>
    (await run(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env: world.env() })).stdout;

  const clientView = async (): Promise<View> => ({
    tools: (await client.listTools()).tools.map((t) => t.name).sort(),
    resources: (await client.listResources()).resources.map((r) => r.uri).sort(),
    templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort(),
  });
  const operatorView = async (): Promise<View> => {
    const t = JSON.parse(await ctl('--json', 'tools', 'mover')) as { tools: { name: string }[] };
    const r = JSON.parse(await ctl('--json', 'resources', 'mover')) as {
      resources: { uri: string }[];
      templates: { uriTemplate: string }[];
    };
    return {
      tools: t.tools.map((x) => x.name).sort(),
      resources: r.resources.map((x) => x.uri).sort(),
      templates: r.templates.map((x) => x.uriTemplate).sort(),
    };
  };
  /** Writes the profile, waits for the list_changed notifications named, and returns the client's view. */
  const edit = async (servers: string[], expect: { tools?: boolean; resources?: boolean }): Promise<View> => {
    const seen = { ...changes };
    world.write('profiles/moving.yaml', profile(...servers));
    if (expect.tools) await waitFor('notifications/tools/list_changed', () => changes.tools > seen.tools, 30_000);
    if (expect.resources) await waitFor('notifications/resources/list_changed', () => changes.resources > seen.resources, 30_000);
    return clientView();
  };

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'profiles/moving.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: { mover: moving }\n',
    });
    await world.startCore();
    client = await world.gateway('mover');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes.tools++;
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changes.resources++;
    });
  });
  afterAll(async () => world.cleanup());

  it('starts without any context channel, in the client and in mcpdctl alike', async () => {
    const view = await clientView();
    expect(view.tools).toContain('fx__echo');
    expect(view.tools).not.toContain('mcpd_finder');
    expect(view.resources.filter((u) => u.startsWith('mcpd://'))).toEqual([]);
    expect(await operatorView()).toEqual(view);
  });

  it('a dpe:// server added by an edit brings mcpd_finder and mcpd://finder, with list_changed for both', async () => {
    const view = await edit([echoServer('fx', { idleSeconds: 300 }), docsServer], { tools: true, resources: true });
    expect(view.tools).toContain('mcpd_finder');
    expect(view.resources).toContain('mcpd://finder');
    expect(view.resources).not.toContain('mcpd://desktop');
    expect(await operatorView()).toEqual(view);
  });

  it('a window:// server added next brings mcpd://desktop', async () => {
    const view = await edit([echoServer('fx', { idleSeconds: 300 }), docsServer, windowServer], { resources: true });
    expect(view.resources).toContain('mcpd://desktop');
    expect(view.templates.some((t) => t.startsWith('mcpd://desktop'))).toBe(true);
    expect(await operatorView()).toEqual(view);
  });

  it('removing the dpe:// server withdraws mcpd_finder and mcpd://finder, with list_changed for both', async () => {
    const view = await edit([echoServer('fx', { idleSeconds: 300 }), windowServer], { tools: true, resources: true });
    expect(view.tools).not.toContain('mcpd_finder');
    expect(view.resources).not.toContain('mcpd://finder');
    expect(view.resources).toContain('mcpd://desktop');
    expect(await operatorView()).toEqual(view);
  });

  it('removing the last window:// server withdraws mcpd://desktop', async () => {
    const view = await edit([echoServer('fx', { idleSeconds: 300 })], { resources: true });
    expect(view.tools).not.toContain('mcpd_finder');
    expect(view.resources.filter((u) => u.startsWith('mcpd://'))).toEqual([]);
    expect(view.templates.filter((u) => u.startsWith('mcpd://'))).toEqual([]);
    expect(await operatorView()).toEqual(view);
  });
});

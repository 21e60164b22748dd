import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { TestWorld } from '../support/core-process.js';
import type { HttpGatewayProc } from '../support/http-gateway.js';
import { startEraWorld, stopEraWorld, type EraWorld } from '../support/era-world.js';
import { MCPDMCP } from '../support/paths.js';

// The four pairings of client era × server era through `mcpdmcp` and the core, over --http and over stdio:
// real SDK clients (v1 speaks 2025-11-25 sessions, v2 pinned to 2026-07-28 stateless requests) and two
// fixture servers with the same tools, one per era (era2025.mjs asks with elicitation/create, era2026.mjs
// with InputRequiredResult). Over stdio the v2 client probes `server/discover` on a sibling process, then
// opens its own with a 2026-07-28 request; the v1 client opens with `initialize`.

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
type CallOptions = { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal };

/** What the table needs of a client, whichever SDK it is. */
interface EraClient {
  era: string;
  listTools(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>, opts?: CallOptions): Promise<ToolResult>;
  listResources(): Promise<{ uri: string; name: string }[]>;
  readText(uri: string): Promise<string>;
  close(): Promise<void>;
}

const CAPS = { elicitation: { form: {} } };
const accept = (message: string, asked: string[]) => {
  asked.push(message);
  return { action: 'accept' as const, content: { ok: true } };
};
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

/** Where a client reaches mcpdmcp: the --http gateway's URL, or how to start `mcpdmcp CALLER` on stdio. */
interface Target {
  face: 'http' | 'stdio';
  url: string;
  stdio: { command: string; args: string[]; env: Record<string, string> };
}

async function legacyClient(target: Target, asked: string[]): Promise<EraClient> {
  const c = new LegacyClient({ name: 'pairing-2025', version: '1' }, { capabilities: CAPS });
  c.setRequestHandler(ElicitRequestSchema, async (req) => accept(req.params.message, asked));
  if (target.face === 'stdio') await c.connect(new LegacyStdio({ ...target.stdio, stderr: 'ignore' }));
  else {
    const transport = new LegacyHttp(new URL(target.url));
    await c.connect(transport);
    if (!transport.sessionId) throw new Error('the 2025 client got no session');
  }
  return {
    era: '2025-11-25',
    listTools: async () => (await c.listTools()).tools.map((t) => t.name),
    callTool: async (name, args, opts) => (await c.callTool({ name, arguments: args }, undefined, opts)) as ToolResult,
    listResources: async () => (await c.listResources()).resources,
    readText: async (uri) => (await c.readResource({ uri })).contents.map((x) => ('text' in x ? x.text : '')).join(''),
    close: () => c.close(),
  };
}

async function modernClient(target: Target, asked: string[]): Promise<EraClient> {
  const c = new ModernClient(
    { name: 'pairing-2026', version: '1' },
    { capabilities: CAPS, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  c.setRequestHandler('elicitation/create', async (req) => accept(req.params.message, asked));
  await c.connect(target.face === 'stdio' ? new ModernStdio({ ...target.stdio, stderr: 'ignore' }) : new ModernHttp(new URL(target.url)));
  if (c.getProtocolEra() !== 'modern') throw new Error(`the 2026 client negotiated ${String(c.getProtocolEra())}`);
  return {
    era: '2026-07-28',
    listTools: async () => (await c.listTools()).tools.map((t) => t.name),
    callTool: async (name, args, opts) => (await c.callTool({ name, arguments: args }, opts)) as ToolResult,
    listResources: async () => (await c.listResources()).resources,
    readText: async (uri) => (await c.readResource({ uri })).contents.map((x) => ('text' in x ? x.text : '')).join(''),
    close: () => c.close(),
  };
}

const CLIENTS = [
  ['2025-11-25', legacyClient],
  ['2026-07-28', modernClient],
] as const;
/** Profile server name, its era, its resource and what that says. */
const SERVERS = [
  ['old', '2025-11-25', 'era2025://info', 'fixture-era2025 speaks 2025-11-25'],
  ['new', '2026-07-28', 'era://info', 'fixture-era2026 speaks 2026-07-28'],
] as const;

const FACES = ['http', 'stdio'] as const;

describe('every client era × every server era through mcpdmcp, over --http and stdio', () => {
  let era: EraWorld | undefined;
  let world: TestWorld;
  let gw: HttpGatewayProc;

  beforeAll(async () => {
    era = await startEraWorld('pairings');
    ({ world, gw } = era);
  });
  afterAll(() => stopEraWorld(era));

  const target = (face: Target['face']): Target => ({
    face,
    url: gw.url,
    stdio: {
      command: process.execPath,
      args: [MCPDMCP, 'pairings', '--socket', world.socket, '--no-autostart'],
      env: world.env() as Record<string, string>,
    },
  });

  /** Runs `body` with a fresh client of `connect`'s era on `face`, closed afterwards. */
  const withClient = async (
    face: Target['face'],
    connect: (typeof CLIENTS)[number][1],
    body: (c: EraClient, asked: string[]) => Promise<void>,
  ) => {
    const asked: string[] = [];
    const client = await connect(target(face), asked);
    try {
      await body(client, asked);
    } finally {
      await client.close();
    }
  };

  for (const face of FACES) {
    for (const [clientEra, connect] of CLIENTS) {
      for (const [srv, serverEra, uri, info] of SERVERS) {
        it(`${face}: ${clientEra} client × ${serverEra} server: list, call, elicitation, progress, error, resource`, async () => {
          await withClient(face, connect, async (client, asked) => {
            expect(client.era).toBe(clientEra);
            const tools = await client.listTools();
            expect(tools).toEqual(expect.arrayContaining([`${srv}__echo`, `${srv}__confirm`, `${srv}__slow`]));

            expect(textOf(await client.callTool(`${srv}__echo`, { text: `${clientEra}→${serverEra}` }))).toBe(`${clientEra}→${serverEra}`);

            // The server asks in its era's way; the client is asked in its own.
            const confirmed = await client.callTool(`${srv}__confirm`, { action: 'deploy' });
            expect(textOf(confirmed)).toBe('deploy: ok=true');
            expect(asked).toEqual(['Really deploy?']);

            const steps: number[] = [];
            const progressed = await client.callTool(`${srv}__progress`, {}, { onprogress: (p) => steps.push(p.progress) });
            expect(textOf(progressed)).toBe('progress done (token given)');
            expect(steps).toEqual([1, 2, 3]);

            const failed = await client.callTool(`${srv}__fail`, {});
            expect([failed.isError, textOf(failed)]).toEqual([true, 'failed on purpose']);

            const listed = await client.listResources();
            expect(listed.map((r) => r.uri)).toContain(uri);
            expect(await client.readText(uri)).toBe(info);
          });
        });
      }
    }
  }

  // After the rest: a call cancelled mid-way leaves its instance refusing server requests (they might be
  // the cancelled call's), which the elicitation cases above need.
  for (const face of FACES) {
    for (const [clientEra, connect] of CLIENTS) {
      for (const [srv, serverEra] of SERVERS) {
        it(`${face}: ${clientEra} client × ${serverEra} server: a cancelled call is cancelled at the server`, async () => {
          await withClient(face, connect, async (client) => {
            const before = Number(textOf(await client.callTool(`${srv}__cancelled`, {})));
            const abort = new AbortController();
            let running = () => {};
            const started = new Promise<void>((r) => (running = r));
            // The server's first progress says its handler runs: the core counting the call in flight is not
            // enough (an abort before the request reaches the server never reaches the handler).
            const slow = client.callTool(`${srv}__slow`, {}, { signal: abort.signal, onprogress: () => running() });
            // Observed by the expect below; this only keeps an early rejection from being reported as unhandled.
            slow.catch(() => undefined);
            await started;
            abort.abort();
            await expect(slow).rejects.toThrow();
            await until(
              async () => Number(textOf(await client.callTool(`${srv}__cancelled`, {}))) === before + 1,
              `${srv} saw the cancellation`,
            );
          });
        });
      }
    }
  }
});

/** Polls `check` (a real round trip each time, 50 ms apart to spare a loaded machine) until it holds; 30 s at most. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

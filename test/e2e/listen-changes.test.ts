import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { TestWorld } from '../support/core-process.js';
import type { HttpGatewayProc } from '../support/http-gateway.js';
import { startEraWorld, stopEraWorld, type EraWorld } from '../support/era-world.js';
import { MCPDMCP } from '../support/paths.js';

// A 2026-07-28 client's `subscriptions/listen` stream on mcpdmcp (--http and stdio) hears every change of
// its tool list, however many follow one another and whenever the stream was opened: before the first
// change, or after it. The servers behind the core are of both eras (era2025.mjs tells the core on its
// session, era2026.mjs on the core's own listen stream); their `toggle` tool adds the tool `toggled` and
// removes it again, so the second change leads back to the list the stream started from.

type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

/** Counts the tools/list_changed notifications a client hears; `reach(n)` waits for the n-th. */
class Heard {
  private count = 0;
  private waiters: (() => void)[] = [];

  hear(): void {
    this.count++;
    for (const w of this.waiters.splice(0)) w();
  }

  async reach(n: number, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.count < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`heard ${this.count} tools/list_changed of ${n} (${what})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }
}

const SERVERS = [
  ['old', '2025-11-25'],
  ['new', '2026-07-28'],
] as const;
const FACES = ['http', 'stdio'] as const;

describe('a 2026-07-28 listen stream hears every tool list change, opened before or after the first', () => {
  let era: EraWorld | undefined;
  let world: TestWorld;
  let gw: HttpGatewayProc;

  beforeAll(async () => {
    era = await startEraWorld('listener');
    ({ world, gw } = era);
  });
  afterAll(() => stopEraWorld(era));

  /** A v2 client pinned to 2026-07-28 on `face`, counting the tools/list_changed it hears. */
  const connect = async (face: (typeof FACES)[number]) => {
    const c = new ModernClient(
      { name: 'listener-2026', version: '1' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const heard = new Heard();
    c.setNotificationHandler('notifications/tools/list_changed', () => heard.hear());
    const stdio = {
      command: process.execPath,
      args: [MCPDMCP, 'listener', '--socket', world.socket, '--no-autostart'],
      env: world.env() as Record<string, string>,
    };
    await c.connect(face === 'stdio' ? new ModernStdio({ ...stdio, stderr: 'ignore' }) : new ModernHttp(new URL(gw.url)));
    expect(c.getProtocolEra()).toBe('modern');
    const hasToggled = async (srv: string) =>
      (await c.listTools(undefined, { cacheMode: 'bypass' })).tools.some((t) => t.name === `${srv}__toggled`);
    const toggle = async (srv: string) => textOf((await c.callTool({ name: `${srv}__toggle`, arguments: {} })) as ToolResult);
    return { c, heard, hasToggled, toggle };
  };

  for (const face of FACES) {
    for (const [srv, era] of SERVERS) {
      for (const opened of ['before', 'after'] as const) {
        it(`${face}: ${era} server: three changes in a row, the stream opened ${opened} the first`, async () => {
          const { c, heard, hasToggled, toggle } = await connect(face);
          try {
            let on = await hasToggled(srv);
            const change = async () => {
              on = !on;
              expect(await toggle(srv)).toBe(on ? 'on' : 'off');
            };
            if (opened === 'after') {
              await change();
              // The stream must start from the changed list: wait until the core lists it.
              await until(async () => (await hasToggled(srv)) === on, `the core lists ${srv}'s first change`);
            }
            const sub = await c.listen({ toolsListChanged: true });
            expect(sub.honoredFilter).toEqual({ toolsListChanged: true });
            const changes = opened === 'before' ? 3 : 2;
            for (let n = 1; n <= changes; n++) {
              await change();
              await heard.reach(n, `change ${n} of ${changes}, ${face}, ${era} server, stream opened ${opened} the first`);
              expect(await hasToggled(srv)).toBe(on);
            }
            await sub.close();
          } finally {
            await c.close();
          }
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

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TestWorld } from './core-process.js';
import { FIXTURES } from './paths.js';
import { profile, server } from './profiles.js';

const SHIFTING = join(FIXTURES, 'servers/shifting-tools.mjs');
const schema = { type: 'object', properties: { q: { type: 'string' } } };

/** A tool definition as the shifting-tools fixture reads it from its file. */
export const shiftingTool = (name: string, description: string) => ({ name, description, inputSchema: schema });

export interface ShiftingTools {
  /** The JSON file the server reads its tools from at every tools/list: write it, then call `p__notify`. */
  file: string;
  /** Caller one's MCP client. */
  client: Client;
  /** The client's tool names, sorted. */
  names(): Promise<string[]>;
  /** Resolves on the client's next tools/list_changed. */
  nextChange(): Promise<void>;
  /** Writes the server's tools and has it announce them (`p__notify`); resolves once the client got its list_changed. */
  shift(tools: ReturnType<typeof shiftingTool>[]): Promise<void>;
}

/**
 * The setting of the tool pins tests: `world`'s core started with server p of the shifting-tools fixture
 * (lookup and fetch from the file, beside its own notify and exit) in the default profile, and caller one
 * connected through mcpdmcp; `coreEnv` is added to the core's environment.
 */
export async function startShiftingTools(world: TestWorld, coreEnv: Record<string, string> = {}): Promise<ShiftingTools> {
  const file = join(world.dir, 'tools.json');
  writeFileSync(file, JSON.stringify([shiftingTool('lookup', 'Look a word up.'), shiftingTool('fetch', 'Fetch a page.')]));
  world.write(
    'profiles/default.yaml',
    profile(server('p', [process.execPath, SHIFTING], { idleSeconds: 300 }, { SHIFTING_TOOLS_FILE: file })),
  );
  await world.startCore(coreEnv);
  const client = await world.gateway('one');
  let waiting: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => waiting?.());
  const nextChange = () => new Promise<void>((resolve) => (waiting = resolve));
  return {
    file,
    client,
    names: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    nextChange,
    shift: async (tools) => {
      writeFileSync(file, JSON.stringify(tools));
      const changed = nextChange();
      await client.callTool({ name: 'p__notify', arguments: {} });
      await changed;
    },
  };
}

import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { coreWorld } from '../support/core-world.js';
import { MCPDMCP, REPO } from '../support/paths.js';
import { everythingServer, profile } from '../support/profiles.js';

const run = promisify(execFile);
const INSPECTOR = resolve(REPO, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

/** The official MCP Inspector, headless, as a third-party client of `mcpdmcp`. */
describe('MCP Inspector (--cli) through mcpdmcp', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(everythingServer('everything', { idleSeconds: 300 })),
    'callers.yaml': 'callers: {}\n',
  });

  const inspect = async (...args: string[]) => {
    const { stdout } = await run(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        '-q',
        '--format',
        'json',
        '-e',
        `MCPD_TEST_TAG=${world.tag}`,
        process.execPath,
        MCPDMCP,
        'inspector',
        '--socket',
        world.socket,
        '--no-autostart',
        ...args,
      ],
      { env: world.env(), timeout: 60_000, cwd: world.dir },
    );
    return JSON.parse(stdout) as { result: Record<string, unknown> };
  };

  it('lists the namespaced tools', async () => {
    const r = await inspect('--method', 'tools/list');
    const names = (r.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything__get-sum');
  });

  it('calls a tool', async () => {
    const r = await inspect('--method', 'tools/call', '--tool-name', 'everything__get-sum', '--tool-arg', 'a=2', 'b=40');
    expect(JSON.stringify(r.result.content)).toContain('42');
  });
});

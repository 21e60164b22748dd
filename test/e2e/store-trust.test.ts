import { chownSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreWorld } from '../support/core-world.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

/** uid of "nobody": another local user. */
const OTHER_UID = 65534;

describe.skipIf(userInfo().uid !== 0)('hot reload of a store file another user planted — needs root to chown', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(echoServer('fx')),
    'callers.yaml': 'callers: {}\n',
  });

  it('is refused, and its command input never runs', async () => {
    const marker = join(world.dir, 'PWNED');
    const file = join(world.configDir, 'profiles/default.yaml');
    // Written and given away elsewhere, then moved in at once: the watcher never sees a root-owned version.
    const staged = join(world.dir, 'staged.yaml');
    writeFileSync(
      staged,
      [
        'inputs:',
        '  - id: x',
        '    type: command',
        `    command: sh -c 'touch ${marker} && echo v'`,
        'servers:',
        '  - name: a',
        '    cmd: [node, a.js]',
        '    env: { X: "${input:x}" }',
        '',
      ].join('\n'),
    );
    chownSync(staged, OTHER_UID, OTHER_UID);
    renameSync(staged, file);
    const calls = world.calls();
    await waitFor('the reload to be rejected', async () =>
      (await calls.status()).configIssues.some((i) => i.includes('cannot be trusted')),
    );
    const issues = (await calls.status()).configIssues.join('\n');
    expect(issues).toContain(file);
    expect(issues).toMatch(/owned by uid 65534/);
    expect(existsSync(marker)).toBe(false);
  });
});

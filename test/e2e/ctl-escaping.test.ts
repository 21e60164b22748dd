import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { coreWorld } from '../support/core-world.js';
import { MCPDCTL } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);

describe('mcpdctl status prints caller names safely', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(echoServer('fx')),
    'callers.yaml': 'callers: {}\n',
  });

  it('escapes a caller name with a newline and a terminal escape, so it cannot forge a row', async () => {
    const forged = 'mallory\nroot             default  9\x1b[2J';
    const s = await SessionClient.connect(world.socket, { caller: forged, pid: process.pid, clientName: 't', previousSessionId: '' });
    try {
      const { stdout } = await run(process.execPath, [MCPDCTL, '--socket', world.socket, 'status'], { env: world.env() });
      expect(stdout).toContain('mallory\\nroot');
      expect(stdout).toContain('\\x1b[2J');
      expect(stdout).not.toContain('\x1b');
      expect(stdout.split('\n').some((l) => l.startsWith('root'))).toBe(false);
    } finally {
      s.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { proposeSandbox } from './sandbox-proposal.js';

describe('the sandbox proposed from an entry', () => {
  it('grants path arguments read-write, but not scripts, the whole home or /', () => {
    const p = proposeSandbox(
      [
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/home/u/projects/',
        '~/notes',
        '--db=${HOME}/data.db',
        '/opt/srv/index.js',
        '~',
        '/',
      ],
      {},
    );
    expect(p.sandbox).toEqual({
      filesystem: { read: [], write: ['/home/u/projects', '~/notes', '${HOME}/data.db'] },
      network: { allow: [] },
    });
    expect(p.reasons).toContain('filesystem.write ~/notes: the path argument "~/notes"');
    expect(p.reasons.filter((r) => r.startsWith('not granted'))).toHaveLength(2);
  });

  it('resolves relative paths against a known cwd and says why it cannot otherwise', () => {
    expect(proposeSandbox(['./data'], {}, '/work/p').sandbox.filesystem.write).toEqual(['/work/p/data']);
    const unknown = proposeSandbox(['../data'], {});
    expect(unknown.sandbox.filesystem.write).toEqual([]);
    expect(unknown.reasons[0]).toMatch(/^not granted: "\.\.\/data" is relative/);
  });

  it('allows the hosts of URLs and of known credentials, loopback with its port', () => {
    const p = proposeSandbox(['--endpoint', 'https://api.example.com/v1'], {
      GITHUB_PERSONAL_ACCESS_TOKEN: '${input:gh}',
      DB_URL: 'http://127.0.0.1:5984/db',
      SOME_TOKEN: 'x',
    });
    expect(p.sandbox.network.allow).toEqual(['api.example.com', 'api.github.com', '127.0.0.1:5984']);
    expect(p.reasons).toContain('network.allow api.github.com: env GITHUB_PERSONAL_ACCESS_TOKEN is a credential for it');
  });

  it('proposes nothing for an entry that names nothing', () => {
    expect(proposeSandbox(['-y', 'some-server@1.0.0', 'stdio'], { LOG_LEVEL: 'debug' })).toEqual({
      sandbox: { filesystem: { read: [], write: [] }, network: { allow: [] } },
      reasons: [],
    });
  });
});

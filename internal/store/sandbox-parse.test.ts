import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { specFingerprint } from '../contract/model/fingerprint.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

describe('sandbox: a stdio server run in bubblewrap', () => {
  it('reads grants (~, relative to the store, absolute) and hosts; true = nothing granted; false = none', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: boxed',
        '    cmd: [node, s.js]',
        '    sandbox:',
        '      filesystem:',
        '        read: [~/docs, data, /srv/shared]',
        '        write: [~/out]',
        '      network:',
        '        allow: ["api.example.com", "127.0.0.1:8080", "*.github.com"]',
        '  - name: bare',
        '    cmd: [node, s.js]',
        '    sandbox: true',
        '  - name: open',
        '    cmd: [node, s.js]',
        '    sandbox: false',
      ],
    });
    const r = await loadStore(dir, { env: { HOME: '/home/u' } });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const [boxed, bare, open] = r.store.profiles.get('default')?.servers ?? [];
    expect(boxed?.sandbox).toEqual({
      read: ['/home/u/docs', join(dir, 'data'), '/srv/shared'],
      write: ['/home/u/out'],
      allow: ['api.example.com', '127.0.0.1:8080', '*.github.com'],
    });
    expect(bare?.sandbox).toEqual({ read: [], write: [], allow: [] });
    expect(open?.sandbox).toBeUndefined();
    // The sandbox is part of the pool's identity; an unsandboxed spec keeps the fingerprint it had.
    expect(specFingerprint(bare!)).not.toBe(specFingerprint(open!));
    const { sandbox: _s, ...withoutSandbox } = bare!;
    expect(specFingerprint({ ...withoutSandbox })).toBe(specFingerprint(open!));
  });

  it('reports each bad value at its file, line and field with what to do', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                                      1
        '  - name: boxed', //                               2
        '    cmd: [node, s.js]', //                         3
        '    sandbox:', //                                  4
        '      filesystem:', //                             5
        '        read: [~/docs]', //                        6
        '        write: [/]', //                            7 the whole filesystem
        '        wirte: [x]', //                            8 typo
        '      network:', //                                9
        '        allow: ["http://api.example.com", "h:70000"]', // 10 a URL, a bad port
        '  - name: remote', //                              11
        '    url: https://mcp.example.com/mcp', //          12
        '    sandbox: true', //                             13 not a stdio server
        '  - name: odd', //                                 14
        '    cmd: [node]', //                               15
        '    sandbox: yes-please', //                       16
      ],
    });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.issues.map((i) => [relative(dir, i.file), i.line, i.field, i.message]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['profiles/default.yaml', 7, 'servers[0].sandbox.filesystem.write[0]', expect.stringContaining('whole filesystem')],
        ['profiles/default.yaml', 8, 'servers[0].sandbox.filesystem.wirte', 'unknown key "wirte" in sandbox.filesystem'],
        [
          'profiles/default.yaml',
          10,
          'servers[0].sandbox.network.allow[0]',
          expect.stringContaining('"http://api.example.com" is not a host'),
        ],
        ['profiles/default.yaml', 10, 'servers[0].sandbox.network.allow[1]', expect.stringContaining('port 70000')],
        ['profiles/default.yaml', 13, 'servers[1].sandbox', expect.stringContaining('applies to stdio servers')],
        ['profiles/default.yaml', 16, 'servers[2].sandbox', expect.stringContaining('true, false or a mapping')],
      ]),
    );
  });

  it('refuses a write grant of the whole home folder', async () => {
    const dir = await store({
      'profiles/default.yaml': ['servers:', '  - name: b', '    cmd: [node]', '    sandbox: { filesystem: { write: ["~"] } }'],
    });
    const r = await loadStore(dir, { env: { HOME: homedir() } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map(formatIssue).join('\n')).toMatch(/default\.yaml:4:.*sandbox\.filesystem\.write\[0\].*whole home folder/);
  });
});

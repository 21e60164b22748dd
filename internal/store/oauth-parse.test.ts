import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { secretRedactor } from '../shared/redactor.js';
import { loadStore, useStoreSecrets } from './index.js';
import { store } from '../../test/support/catalog-store.js';

describe('oauth: settings of an HTTP server', () => {
  it('reads a pre-registered client, scopes and a metadata document URL, expanding the secret', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: remote',
        '    url: https://mcp.example.com/mcp',
        '    oauth:',
        '      clientId: mcpd-desktop',
        '      clientSecret: ${OAUTH_TEST_SECRET}',
        '      scopes: [mcp:read, mcp:write]',
        '      clientMetadataUrl: https://mcpd.example.com/client.json',
      ],
    });
    const r = await loadStore(dir, { env: { OAUTH_TEST_SECRET: 'very-secret-client-value' } });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const spec = r.store.profiles.get('default')?.servers[0];
    expect(spec?.oauth).toEqual({
      clientId: 'mcpd-desktop',
      clientSecret: 'very-secret-client-value',
      scopes: ['mcp:read', 'mcp:write'],
      clientMetadataUrl: 'https://mcpd.example.com/client.json',
    });
    useStoreSecrets(r.store);
    expect(secretRedactor.text('secret=very-secret-client-value')).toBe('secret=***');
  });

  it('reports each bad value at its file, line and field with what to do', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                                       1
        '  - name: remote', //                               2
        '    url: https://mcp.example.com/mcp', //           3
        '    oauth:', //                                      4
        '      clientSecret: s3cr3t-value', //                5 secret without id
        '      scopes: ["read write"]', //                   6 a space in a scope
        '      clientMetadataUrl: http://x.example/c.json', // 7 not https
        '      clientID: typo', //                            8 unknown key
        '  - name: local', //                                9
        '    cmd: [node]', //                                10
        '    oauth: { clientId: x }', //                     11 ignored on stdio (warning)
      ],
    });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.issues.map((i) => [relative(dir, i.file), i.line, i.field, i.message, i.hint]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['profiles/default.yaml', 5, 'servers[0].oauth.clientSecret', 'clientSecret needs clientId', expect.stringContaining('clientId')],
        ['profiles/default.yaml', 6, 'servers[0].oauth.scopes[0]', expect.stringContaining('not a valid OAuth scope'), expect.any(String)],
        ['profiles/default.yaml', 8, 'servers[0].oauth.clientID', 'unknown key "clientID" in oauth', 'did you mean "clientId"?'],
      ]),
    );
  });

  it('rejects a metadata document URL that is not https with a path', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: remote',
        '    url: https://mcp.example.com/mcp',
        '    oauth: { clientMetadataUrl: "http://x.example/c.json" }',
      ],
    });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map(formatIssue).join('\n')).toMatch(
      /default\.yaml:4:.*oauth\.clientMetadataUrl.*not a usable client metadata document URL.*https/,
    );
  });

  it('warns that stdio servers ignore oauth', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers:', '  - name: local', '    cmd: [node]', '    oauth: { clientId: x }'] });
    const r = await loadStore(dir);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings.map(formatIssue).join('\n')).toMatch(/default\.yaml:4:.*"oauth" is ignored: transport stdio/);
    expect(r.store.profiles.get('default')?.servers[0]?.oauth).toBeUndefined();
  });
});

import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, type ConfigIssue } from '../shared/errors.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const BASE = { 'profiles/default.yaml': ['servers: []'] };

function where(dir: string, issues: ConfigIssue[]): Array<[string, number, string, string]> {
  return issues.map((i) => [relative(dir, i.file), i.line, i.field, i.message]);
}

describe('runtime.yaml smcp:', () => {
  it('loads the section of the issue, expanding ${SMCP_API_KEY} from the environment', async () => {
    const dir = await store({
      ...BASE,
      'runtime.yaml': [
        'smcp:',
        '  url: http://127.0.0.1:7800',
        '  apiKey: ${SMCP_API_KEY}',
        '  office: office-1',
        '  computers:',
        '    - { name: laptop, caller: claude-desktop }   # computer name -> the caller whose view it serves',
        '    - { name: desk, caller: vscode }',
      ],
    });
    const r = await loadStore(dir, { env: { SMCP_API_KEY: 'k-123456' } });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.store.smcp).toEqual({
      url: 'http://127.0.0.1:7800',
      apiKey: 'k-123456',
      office: 'office-1',
      computers: [
        { name: 'laptop', caller: 'claude-desktop' },
        { name: 'desk', caller: 'vscode' },
      ],
    });
  });

  it('no section, no computers; an absent apiKey is an empty key', async () => {
    const none = await loadStore(await store(BASE), { env: {} });
    expect(none.ok && none.store.smcp).toBe(undefined);
    const dir = await store({ ...BASE, 'runtime.yaml': ['smcp: { url: "http://localhost:1", office: o, computers: [] }'] });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok && r.store.smcp).toEqual({ url: 'http://localhost:1', apiKey: '', office: 'o', computers: [] });
  });

  it('reports every problem with file, line and field, and what to do', async () => {
    const dir = await store({
      ...BASE,
      'runtime.yaml': [
        'smcp:', //                                  1
        '  url: ftp://example.com', //               2 not http
        '  apiKey: ${SMCP_KEY_UNSET}', //            3 unset variable (reported only once the rest is valid)
        '  ofice: office-1', //                      4 typo, and office missing
        '  computers:', //                           5
        '    - { name: laptop, caller: a }', //      6
        '    - { name: laptop, caller: b }', //      7 duplicate
        '    - { name: "", caller: c }', //          8 empty name
        '    - { name: x }', //                      9 no caller
        '    - { name: y, caller: z, role: w }', // 10 unknown key
      ],
    });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = where(dir, r.issues);
    expect(got).toContainEqual(['runtime.yaml', 2, 'smcp.url', '"ftp://example.com" is not an http(s) URL']);
    expect(got).toContainEqual(['runtime.yaml', 4, 'smcp.ofice', 'unknown key "ofice" in the smcp section']);
    expect(r.issues.find((i) => i.field === 'smcp.ofice')?.hint).toBe('did you mean "office"?');
    expect(got).toContainEqual(['runtime.yaml', 2, 'smcp.office', 'smcp has no office']);
    expect(got).toContainEqual(['runtime.yaml', 7, 'smcp.computers[1]', 'computer "laptop" is listed twice (first on line 6)']);
    expect(got).toContainEqual(['runtime.yaml', 8, 'smcp.computers[2].name', 'must not be empty']);
    expect(got).toContainEqual(['runtime.yaml', 9, 'smcp.computers[3].caller', 'computer has no caller']);
    expect(got).toContainEqual(['runtime.yaml', 10, 'smcp.computers[4].role', 'unknown key "role" in an SMCP computer']);
  });

  it('an unset key variable is an error at its line, with the fallback syntax as the hint', async () => {
    const dir = await store({
      ...BASE,
      'runtime.yaml': ['smcp:', '  url: http://127.0.0.1:7800', '  apiKey: ${SMCP_API_KEY}', '  office: o', '  computers: []'],
    });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(where(dir, r.issues)).toEqual([['runtime.yaml', 3, 'smcp.apiKey', 'environment variable "SMCP_API_KEY" is not set']]);
    expect(r.issues[0]?.hint).toMatch(/SMCP_API_KEY:-/);
    const ok = await loadStore(dir, { env: { SMCP_API_KEY: 'abcd' } });
    expect(ok.ok).toBe(true);
  });
});

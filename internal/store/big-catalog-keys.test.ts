import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const SERVER = ['servers:', '  - name: a', '    cmd: [node]', '    exposeTools: ["get_*", "list_?"]', '    forbiddenTools: ["*delete*"]'];

describe('profile keys for big catalogs', () => {
  it('reads toolSearch (mapping and shorthand), namespace.reserve and glob lists', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        ...SERVER,
        'namespace: { maxLength: 64, reserve: 20 }',
        'toolSearch:',
        '  pinned: [a__get_*]',
        '  maxResults: 7',
      ],
      'profiles/short.yaml': [...SERVER, 'toolSearch: true'],
      'profiles/off.yaml': [...SERVER, 'toolSearch: { enabled: false }'],
    });
    const r = await loadStore(dir);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const p = r.store.profiles;
    expect(p.get('default')?.namespace.reserve).toBe(20);
    expect(p.get('default')?.toolSearch).toEqual({ pinned: ['a__get_*'], maxResults: 7 });
    expect(p.get('short')?.toolSearch).toEqual({ pinned: [], maxResults: 5 });
    expect(p.get('off')?.toolSearch).toBeUndefined();
    expect(p.get('default')?.servers[0]?.exposeTools).toEqual(['get_*', 'list_?']);
  });

  it('says where a bad reserve or toolSearch is and what to do', async () => {
    const dir = await store({
      'profiles/default.yaml': [...SERVER, 'namespace: { maxLength: 40, reserve: 30 }', 'toolSearch:', '  pined: [x]', '  maxResults: 0'],
    });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    const text = r.ok ? '' : r.issues.map(formatIssue).join('\n');
    expect(text).toMatch(/namespace\.reserve.*leaves 10 of maxLength 40 characters.*lower reserve to at most 24/s);
    expect(text).toMatch(/default\.yaml:8.*unknown key "pined" in toolSearch.*did you mean "pinned"/s);
    expect(text).toMatch(/toolSearch\.maxResults.*≥ 1/);
  });
});

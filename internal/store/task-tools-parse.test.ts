import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

describe('taskTools in a profile entry', () => {
  it('is parsed with the file, line and field of a bad value', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers:', '  - name: a', '    cmd: [node]', '    taskTools: slow_*'] });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => [relative(dir, i.file), i.line, i.field])).toEqual([['profiles/default.yaml', 4, 'servers[0].taskTools']]);
  });
});

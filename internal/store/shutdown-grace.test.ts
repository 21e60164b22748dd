import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const profile = { 'profiles/default.yaml': ['servers: []'] };

describe('runtime.yaml shutdownGraceSeconds', () => {
  it('defaults to 10 s and takes 0 (cancel at once) and fractions', async () => {
    const none = await loadStore(await store(profile));
    expect(none.ok && none.store.runtime.shutdownGraceSeconds).toBe(10);
    for (const v of [0, 2.5, 3600]) {
      const r = await loadStore(await store({ ...profile, 'runtime.yaml': [`shutdownGraceSeconds: ${v}`] }));
      expect(r.ok && r.store.runtime.shutdownGraceSeconds).toBe(v);
    }
  });

  it.each([
    ['-1', /must be ≥ 0, got -1/],
    ['3601', /must be ≤ 3600, got 3601 \(use a value between 0 and 3600\)/],
    ['soon', /must be a number ≥ 0/],
  ])('rejects %s with file:line and what to write', async (value, message) => {
    const dir = await store({ ...profile, 'runtime.yaml': ['logLevel: info', `shutdownGraceSeconds: ${value}`] });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const issue = r.issues.find((i) => i.field === 'shutdownGraceSeconds');
    expect(issue && [relative(dir, issue.file), issue.line]).toEqual(['runtime.yaml', 2]);
    expect(issue && formatIssue(issue)).toMatch(message);
  });
});

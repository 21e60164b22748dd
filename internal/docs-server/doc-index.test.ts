import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DocIndex } from './doc-index.js';

const base = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-index-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function touch(file: string, content: string, secondsFromNow: number): void {
  writeFileSync(file, content);
  const t = Date.now() / 1000 + secondsFromNow;
  utimesSync(file, t, t);
}

describe('DocIndex', () => {
  it('indexes incrementally: added, unchanged (no re-parse), changed, removed', async () => {
    const dir = path.join(base, 'one');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    const file = path.join(dir, 'sub', 'a.md');
    touch(file, '# First', -10);
    const idx = new DocIndex(DocIndex.rootsFor([dir]));
    expect(await idx.upsert(file)).toBe('added');
    expect(idx.get('sub/a.md')).toMatchObject({ doc_ref: 'sub/a.md', title: 'First', file_type: 'md', file_uri: `file://${file}` });
    expect(await idx.upsert(file)).toBe('unchanged');
    touch(file, '# Second', -5);
    expect(await idx.upsert(file)).toBe('changed');
    expect(idx.get('sub/a.md')?.title).toBe('Second');
    expect(idx.get('sub/a.md')?.last_modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(idx.remove(file)).toBe(true);
    expect(idx.remove(file)).toBe(false);
    expect(idx.get('sub/a.md')).toBeUndefined();
    expect(idx.all()).toEqual([]);
  });
  it('a failed re-parse keeps the last good version; a new broken file is not listed', async () => {
    const dir = path.join(base, 'two');
    mkdirSync(dir);
    const good = path.join(dir, 'c.json');
    touch(good, '{"title":"ok"}', -10);
    const logs: string[] = [];
    const idx = new DocIndex(DocIndex.rootsFor([dir]), (m) => logs.push(m));
    expect(await idx.upsert(good)).toBe('added');
    touch(good, '{"title":', -5);
    expect(await idx.upsert(good)).toBe('failed');
    expect(idx.get('c.json')?.title).toBe('ok');
    expect(logs.join('\n')).toMatch(/cannot index .*c\.json: invalid JSON.*keeping the previous version/);
    const bad = path.join(dir, 'd.json');
    touch(bad, '[', -5);
    expect(await idx.upsert(bad)).toBe('failed');
    expect(idx.get('d.json')).toBeUndefined();
    expect(await idx.upsert(path.join(dir, 'x.docx'))).toBe('unsupported');
    expect(await idx.upsert(path.join(base, 'outside.md'))).toBe('unsupported');
  });
  it('several roots get their folder name as doc_ref prefix, de-duplicated', () => {
    const roots = DocIndex.rootsFor(['/a/docs', '/b/docs', '/c/other']);
    expect(roots.map((r) => r.label)).toEqual(['docs', 'docs-2', 'other']);
    const idx = new DocIndex(roots);
    expect(idx.docRefFor('/b/docs/x/y.md')).toBe('docs-2/x/y.md');
    expect(idx.docRefFor('/d/z.md')).toBeUndefined();
    expect(DocIndex.rootsFor(['/a/docs'])[0]?.label).toBe('');
  });
});

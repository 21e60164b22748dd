import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_FIXTURES } from '../../../test/fixtures/docs/generate.js';
import { JSON_ROWS_PER_PAGE, parseJsonDocument } from './json.js';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

describe('parseJsonDocument', () => {
  it('object: heading per key followed by the value element; metadata from title/description/keywords', async () => {
    const c = await parseJsonDocument(new Uint8Array(readFileSync(path.join(TEXT_FIXTURES, 'config.json'))), 'config');
    expect(c).toMatchObject({ title: 'Service configuration', summary: 'Settings of the demo service.', keywords: ['config', 'demo'] });
    const els = c.pages[0]?.elements ?? [];
    const after = (key: string) => els[els.findIndex((e) => e.category === 'heading' && e.content.text === key) + 1];
    expect(after('port')).toMatchObject({ category: 'text', content: { text: '8080' }, metadata: { json_type: 'number' } });
    expect(after('hosts')).toMatchObject({ category: 'list', content: { ordered: true, items: ['a.example', 'b.example'] } });
    expect(after('users')).toMatchObject({
      category: 'table',
      content: {
        headers: ['name', 'admin', 'quota'],
        rows: [
          ['ada', 'true', ''],
          ['bob', '', '5'],
        ],
      },
    });
    expect(after('limits')).toMatchObject({
      category: 'code',
      content: { language: 'json', code: JSON.stringify({ cpu: 2, memory: '1Gi' }, null, 2) },
    });
  });
  it('array of records: table pages', async () => {
    const recs = Array.from({ length: JSON_ROWS_PER_PAGE + 3 }, (_, i) => ({ id: i, tags: ['x'] }));
    const c = await parseJsonDocument(enc(recs), 'recs');
    expect(c.title).toBe('recs');
    expect(c.summary).toBe(`JSON array of ${JSON_ROWS_PER_PAGE + 3} item(s)`);
    expect(c.pages).toHaveLength(2);
    expect(c.pages[1]?.elements[0]?.content).toEqual({
      headers: ['id', 'tags'],
      rows: [
        [String(JSON_ROWS_PER_PAGE), '["x"]'],
        [String(JSON_ROWS_PER_PAGE + 1), '["x"]'],
        [String(JSON_ROWS_PER_PAGE + 2), '["x"]'],
      ],
    });
  });
  it('array of scalars → list; scalar → text; mixed array → code', async () => {
    expect((await parseJsonDocument(enc([1, 'a', null]), 'l')).pages[0]?.elements[0]).toMatchObject({
      category: 'list',
      content: { items: ['1', 'a', 'null'] },
    });
    expect((await parseJsonDocument(enc('"hello"'), 's')).pages[0]?.elements[0]).toMatchObject({
      category: 'text',
      content: { text: 'hello' },
    });
    expect((await parseJsonDocument(enc({ m: [1, { a: 1 }] }), 'm')).pages[0]?.elements[1]).toMatchObject({ category: 'code' });
  });
  it('invalid JSON is a ParseError saying so', async () => {
    await expect(parseJsonDocument(enc('{"a": '), 'bad')).rejects.toThrow(/invalid JSON: .*fix the syntax/);
  });
});

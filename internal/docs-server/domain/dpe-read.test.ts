import { describe, expect, it } from 'vitest';
import { assignElementIds, type DpeDocument } from './document.js';
import { DpeError } from '../../contract/finder/dpe-error.js';
import { readDpeResource, type DpeDocumentSource } from './dpe-read.js';
import { must } from '../../shared/must.js';

const pages = assignElementIds([
  {
    title: 'Intro',
    elements: [
      { category: 'heading', summary: 'Intro', content: { text: 'Intro', level: 2 } },
      { category: 'text', summary: 'Hello', content: { text: 'Hello' } },
      { category: 'table', summary: 't', content: { headers: ['a', 'b|c'], rows: [['1', 'x\ny']] } },
    ],
  },
  {
    title: 'Two',
    elements: [
      { category: 'list', content: { ordered: true, items: ['x', 'y'] } },
      { category: 'list', content: { ordered: false, items: ['p'] } },
      { category: 'code', content: { code: 'a ``` b', language: 'js' } },
      { category: 'chart', content: { title: 'Sales', data_summary: 'up 5%' } },
      { category: 'image', content: { url: 'i.png', alt: 'pic' } },
      { category: 'link', content: { url: 'http://x', text: 'X' } },
      { category: 'formula', content: { expression: 'E=mc^2' } },
      { category: 'separator', summary: 'rule', content: {} },
      { category: 'text', summary: 'Hello', content: { text: 'Hello' } },
    ],
  },
  { title: 'Three', elements: [] },
]);
const doc: DpeDocument = {
  doc_ref: 'dir/guide.md',
  file_uri: 'file:///d/dir/guide.md',
  file_type: 'md',
  title: 'Guide',
  keywords: ['k'],
  summary: 'S',
  last_modified: '2024-05-01T00:00:00.000Z',
  pages,
};
const other: DpeDocument = {
  doc_ref: 'a.txt',
  file_uri: 'file:///d/a.txt',
  file_type: 'txt',
  title: 'A',
  pages: [{ title: 'p', elements: [] }],
};
const src: DpeDocumentSource = { get: (r) => [doc, other].find((d) => d.doc_ref === r), all: () => [doc, other] };
const read = (uri: string): { mimeType: string; text: string } => readDpeResource('docs', src, uri);
const json = (uri: string): Record<string, unknown> => JSON.parse(read(uri).text) as Record<string, unknown>;
const D = 'dpe://docs/dir%2Fguide.md';

function codeOf(f: () => unknown): { code: number; data: unknown } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DpeError);
    return { code: (e as DpeError).code, data: (e as DpeError).data };
  }
  throw new Error('no error');
}

describe('element IDs', () => {
  it('derive from content, are unique per document, and survive edits elsewhere', () => {
    const ids = pages.flatMap((p) => p.elements.map((e) => e.element_id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[1]).toMatch(/^text-[0-9a-f]{10}$/);
    expect(ids[ids.length - 1]).toBe(`${ids[1]}-2`); // identical text element later on
    const edited = assignElementIds([{ title: 'new', elements: [{ category: 'text', content: { text: 'inserted' } }] }, ...pages]);
    expect(edited[1]?.elements[2]?.element_id).toBe(must(pages[0]?.elements[2], 'element 2').element_id);
  });
});

describe('readDpeResource', () => {
  it('level 0 lists documents by doc_ref with offset/limit', () => {
    const l0 = json('dpe://docs');
    expect(l0.total_count).toBe(2);
    expect((l0.documents as { doc_ref: string; server: string }[]).map((d) => [d.doc_ref, d.server])).toEqual([
      ['a.txt', 'docs'],
      ['dir/guide.md', 'docs'],
    ]);
    expect((json('dpe://docs?offset=1&limit=1').documents as unknown[]).length).toBe(1);
    expect(read('dpe://docs?format=markdown').text).toContain(`- [Guide](${D}) — md, 3 page(s), modified 2024-05-01T00:00:00.000Z`);
  });
  it('level 1 is the metadata; depth=pages adds a page window', () => {
    expect(json(D)).toEqual({
      doc_ref: 'dir/guide.md',
      uri: D,
      file_uri: 'file:///d/dir/guide.md',
      file_type: 'md',
      title: 'Guide',
      page_count: 3,
      keywords: ['k'],
      summary: 'S',
      last_modified: '2024-05-01T00:00:00.000Z',
    });
    const l1 = json(`${D}?depth=pages&offset=1&limit=1&categories=list`);
    expect(l1).toMatchObject({
      page_offset: 1,
      page_limit: 1,
      page_total: 3,
      pages: [{ page_index: 1, title: 'Two', element_count: 2, uri: `${D}/pages/1`, doc_ref: 'dir/guide.md' }],
    });
    expect(read(`${D}?format=markdown&depth=pages`).text).toMatch(
      /^# Guide\n\nS\n[\s\S]*- \[2\. Three\]\(dpe:\/\/docs\/dir%2Fguide\.md\/pages\/2\) — 0 element\(s\)/,
    );
  });
  it('level 2 returns the page, filtered by categories', () => {
    const l2 = json(`${D}/pages/0`);
    expect(l2).toMatchObject({ page_index: 0, title: 'Intro', doc_ref: 'dir/guide.md', uri: `${D}/pages/0`, element_count: 3 });
    expect((l2.elements as { category: string }[]).map((e) => e.category)).toEqual(['heading', 'text', 'table']);
    const tables = json(`${D}/pages/0?categories=table,image`);
    expect(tables.element_count).toBe(1);
    expect(tables.elements).toEqual([
      {
        element_id: must(pages[0]?.elements[2], 'element 2').element_id,
        category: 'table',
        summary: 't',
        content: { headers: ['a', 'b|c'], rows: [['1', 'x\ny']] },
      },
    ]);
  });
  it('format=markdown renders every category per spec/README.md', () => {
    const r = read(`${D}/pages/1?format=markdown`);
    expect(r.mimeType).toBe('text/markdown');
    expect(r.text).toBe(
      [
        '1. x\n2. y',
        '- p',
        '````js\na ``` b\n````',
        '[图表: Sales] up 5%',
        '![pic](i.png)',
        '[X](http://x)',
        '$ E=mc^2 $',
        '[separator: rule]',
        'Hello',
      ].join('\n\n'),
    );
    expect(read(`${D}/pages/0?format=markdown`).text).toBe('## Intro\n\nHello\n\n| a | b\\|c |\n| --- | --- |\n| 1 | x<br>y |');
  });
  it('format=text renders plain text', () => {
    const r = read(`${D}/pages/0?format=text`);
    expect(r.mimeType).toBe('text/plain');
    expect(r.text).toBe('Intro\n\nHello\n\na\tb|c\n1\tx\ny');
  });
  it('level 3 returns DPEElementDetail; markdown of an element', () => {
    const id = must(pages[1]?.elements[4], 'element 4').element_id;
    expect(json(`${D}/elements/${id}`)).toEqual({
      element_id: id,
      category: 'image',
      content: { url: 'i.png', alt: 'pic' },
      doc_ref: 'dir/guide.md',
      page_index: 1,
      uri: `${D}/elements/${id}`,
    });
    expect(read(`${D}/elements/${id}?format=markdown`).text).toBe('![pic](i.png)');
  });
  it('errors: 4201 unknown doc or host, 4202 page out of range with details, 4203 element, 4204 bad URI', () => {
    expect(codeOf(() => read('dpe://docs/nope.md'))).toEqual({ code: 4201, data: { doc_ref: 'nope.md', host: 'docs' } });
    expect(codeOf(() => read('dpe://other/a.txt')).code).toBe(4201);
    expect(codeOf(() => read(`${D}/pages/3`))).toEqual({ code: 4202, data: { doc_ref: 'dir/guide.md', page_index: 3, page_count: 3 } });
    expect(codeOf(() => read(`${D}/elements/nope`))).toEqual({ code: 4203, data: { doc_ref: 'dir/guide.md', element_id: 'nope' } });
    expect(codeOf(() => read(`${D}/pages/01`)).code).toBe(4204);
    expect(() => read('dpe://docs/dir/guide.md')).toThrow(/percent-encode "\/" inside a doc-ref as %2F/);
  });
});

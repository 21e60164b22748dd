import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_FIXTURES } from '../../../test/fixtures/docs/generate.js';
import { parseText, TEXT_PAGE_CHARS } from './text.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseText', () => {
  it('paragraphs become text elements; a short first line is the title', async () => {
    const c = await parseText(new Uint8Array(readFileSync(path.join(TEXT_FIXTURES, 'notes.txt'))), 'notes');
    expect(c.title).toBe('Meeting notes');
    expect(c.pages).toHaveLength(1);
    expect(c.pages[0]?.elements.map((e) => e.category)).toEqual(['text', 'text', 'text', 'text']);
    expect(c.pages[0]?.elements[1]?.content.text).toBe('The first paragraph talks about the quarterly roadmap.\nIt spans two lines.');
    expect(c.summary).toContain('quarterly roadmap');
  });
  it('fills pages with whole paragraphs up to TEXT_PAGE_CHARS; CRLF is normalised', async () => {
    const para = 'x'.repeat(TEXT_PAGE_CHARS / 2 - 10);
    const c = await parseText(enc([para, para, para, para, para].join('\r\n\r\n')), 'long');
    expect(c.pages.map((p) => p.elements.length)).toEqual([2, 2, 1]);
    expect(c.title).toBe('long'); // first line too long for a title
  });
  it('a paragraph longer than a page is a page of its own; empty files have one empty page', async () => {
    const c = await parseText(enc(`short\n\n${'y'.repeat(TEXT_PAGE_CHARS + 5)}\n\nend`), 's');
    expect(c.pages.map((p) => p.elements.length)).toEqual([1, 1, 1]);
    const empty = await parseText(enc('\n\n  \n'), 'empty');
    expect(empty).toMatchObject({ title: 'empty', pages: [{ title: 'empty', elements: [] }] });
    expect(empty.summary).toBeUndefined();
  });
});

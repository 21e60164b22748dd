import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_FIXTURES } from '../../../test/fixtures/docs/generate.js';
import { MD_MAX_ELEMENTS_PER_PAGE, parseMarkdown } from './markdown.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseMarkdown', () => {
  it('maps the fixture: front matter, pages at # and ##, typed elements', async () => {
    const c = await parseMarkdown(new Uint8Array(readFileSync(path.join(TEXT_FIXTURES, 'guide.md'))), 'guide');
    expect(c).toMatchObject({
      title: 'Developer Guide',
      keywords: ['onboarding', 'setup'],
      summary: 'How to set up the mcpd development environment.',
    });
    expect(c.pages.map((p) => p.title)).toEqual(['Developer Guide', 'Developer Guide', 'Install', 'Reference']);
    expect(c.pages[0]?.elements).toEqual([
      { category: 'text', summary: 'Preface paragraph before any heading.', content: { text: 'Preface paragraph before any heading.' } },
    ]);
    const intro = c.pages[1]?.elements ?? [];
    expect(intro.map((e) => e.category)).toEqual(['heading', 'text', 'link']);
    expect(intro[0]?.content).toEqual({ text: 'Developer Guide', level: 1 });
    expect(intro[1]?.content.text).toBe('Welcome to mcpd. See the spec for details.');
    expect(intro[2]?.content).toEqual({ url: 'https://example.com/spec', text: 'the spec' });
    const install = c.pages[2]?.elements ?? [];
    expect(install.map((e) => e.category)).toEqual(['heading', 'list', 'list', 'code']);
    expect(install[1]?.content).toEqual({ ordered: true, items: ['Clone the repository', 'Run npm ci'] });
    expect(install[2]?.content).toEqual({ ordered: false, items: ['fast', 'local-first'] });
    expect(install[3]?.content).toEqual({ code: 'const answer: number = 42;', language: 'ts' });
    const ref = c.pages[3]?.elements ?? [];
    expect(ref.map((e) => e.category)).toEqual(['heading', 'table', 'image', 'link', 'separator', 'heading', 'text']);
    expect(ref[1]?.content).toEqual({
      headers: ['Name', 'Value'],
      rows: [
        ['port', '9464'],
        ['mode', 'a | b'],
      ],
    });
    expect(ref[2]?.content).toEqual({ url: 'images/arch.png', alt: 'Architecture diagram', title: 'Architecture' });
    expect(ref[3]?.content).toEqual({ url: 'https://example.com/mcpd', text: 'Project home' });
    expect(ref[5]?.content).toEqual({ text: 'Details', level: 3 });
  });
  it('without front matter: title from the first # heading, else the file name; keywords from # / ## headings', async () => {
    const c = await parseMarkdown(enc('## Intro\n\nHello & <b>you</b>\n\n# Main\n\ntext'), 'f');
    expect(c.title).toBe('Main');
    expect(c.keywords).toEqual(['Intro', 'Main']);
    expect(c.summary).toBe('Hello & you');
    const plain = await parseMarkdown(enc('just words'), 'file');
    expect(plain.title).toBe('file');
    expect(plain.pages).toHaveLength(1);
  });
  it('a leading horizontal rule that is not YAML stays content; empty documents have one empty page', async () => {
    const c = await parseMarkdown(enc('---\n- a: [\n---\ntext'), 'x');
    expect(c.pages[0]?.elements[0]?.category).toBe('separator');
    const empty = await parseMarkdown(enc(''), 'empty');
    expect(empty.pages).toEqual([{ title: 'empty', elements: [] }]);
  });
  it('continues a page after MD_MAX_ELEMENTS_PER_PAGE elements', async () => {
    const body = Array.from({ length: MD_MAX_ELEMENTS_PER_PAGE + 5 }, (_, i) => `p${i}`).join('\n\n');
    const c = await parseMarkdown(enc(`# T\n\n${body}`), 'x');
    expect(c.pages.map((p) => p.elements.length)).toEqual([MD_MAX_ELEMENTS_PER_PAGE, 6]);
    expect(c.pages[1]?.title).toBe('T (cont.)');
  });
});

import { Lexer, type Token, type Tokens } from 'marked';
import { parse as parseYaml } from 'yaml';
import { shorten, type DraftElement, type DraftPage } from '../domain/document.js';
import type { JsonObject } from '../../shared/json.js';
import { inlineRefs, plainText } from './markdown-inline.js';
import { utf8, type DocParser } from './types.js';

/** A page longer than this many elements continues on a new page. */
export const MD_MAX_ELEMENTS_PER_PAGE = 100;

interface Block {
  element: DraftElement;
  /** A `#` or `##` heading starts a page. */
  pageBreak?: string;
}

/**
 * Markdown via marked's lexer. Pages start at every `#`/`##` heading (content before the first
 * one is its own page) and are split after MD_MAX_ELEMENTS_PER_PAGE elements. YAML front matter
 * may set title, keywords (or tags) and summary (or description).
 */
export const parseMarkdown: DocParser = async (bytes, stem) => {
  const { meta, body } = splitFrontMatter(utf8(bytes));
  const tokens = new Lexer({ gfm: true }).lex(body);
  const blocks = tokens.flatMap(toBlocks);
  const headings = blocks.filter((b) => b.element.category === 'heading');
  const h1 = headings.find((b) => b.element.content.level === 1);
  const title = str(meta.title) ?? (h1 ?? headings[0])?.element.content.text?.toString() ?? stem;
  const firstText = blocks.find((b) => b.element.category === 'text');
  return {
    title,
    keywords:
      strList(meta.keywords) ??
      strList(meta.tags) ??
      headings
        .filter((b) => b.pageBreak !== undefined)
        .map((b) => String(b.element.content.text))
        .slice(0, 20),
    summary: str(meta.summary) ?? str(meta.description) ?? (firstText ? shorten(String(firstText.element.content.text), 200) : undefined),
    pages: paginate(blocks, title),
  };
};

function toBlocks(t: Token): Block[] {
  switch (t.type) {
    case 'heading': {
      const h = t as Tokens.Heading;
      const text = plainText(h.tokens);
      return [
        {
          element: { category: 'heading', summary: shorten(text), content: { text, level: h.depth } },
          pageBreak: h.depth <= 2 ? text : undefined,
        },
      ];
    }
    case 'paragraph':
      return paragraph(t as Tokens.Paragraph);
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((it) => plainText(it.tokens).trim());
      return [el('list', `${items.length} item(s): ${items.join('; ')}`, { ordered: l.ordered, items })];
    }
    case 'code': {
      const c = t as Tokens.Code;
      return [el('code', `${c.lang || 'code'}: ${c.text}`, { code: c.text, ...(c.lang ? { language: c.lang } : {}) })];
    }
    case 'table': {
      const tb = t as Tokens.Table;
      const headers = tb.header.map((c) => plainText(c.tokens));
      const rows = tb.rows.map((r) => r.map((c) => plainText(c.tokens)));
      return [el('table', `${rows.length} row(s): ${headers.join(', ')}`, { headers, rows })];
    }
    case 'hr':
      return [el('separator', 'separator', {})];
    case 'blockquote': {
      const text = (t as Tokens.Blockquote).text.trim();
      return [{ element: { category: 'text', summary: shorten(text), content: { text }, metadata: { kind: 'blockquote' } } }];
    }
    case 'html': {
      const text = (t as Tokens.HTML).text.trim();
      return text ? [{ element: { category: 'text', summary: shorten(text), content: { text }, metadata: { kind: 'html' } } }] : [];
    }
    default:
      return [];
  }
}

/** A paragraph that is only an image or only a link becomes that element; otherwise text plus its links/images. */
function paragraph(p: Tokens.Paragraph): Block[] {
  const refs = inlineRefs(p.tokens).map(refBlock);
  const meaningful = p.tokens.filter((x) => !(x.type === 'text' && x.raw.trim() === ''));
  const [only] = meaningful;
  if (meaningful.length === 1 && (only?.type === 'image' || only?.type === 'link')) return refs;
  const text = plainText(p.tokens);
  return [el('text', text, { text }), ...refs];
}

function refBlock(r: ReturnType<typeof inlineRefs>[number]): Block {
  if (r.kind === 'image') return el('image', r.text || r.url, { url: r.url, alt: r.text, ...(r.title ? { title: r.title } : {}) });
  return el('link', r.text || r.url, { url: r.url, text: r.text, ...(r.title ? { title: r.title } : {}) });
}

function el(category: DraftElement['category'], summary: string, content: JsonObject): Block {
  return { element: { category, summary: shorten(summary), content } };
}

function paginate(blocks: readonly Block[], title: string): DraftPage[] {
  const pages: DraftPage[] = [];
  let cur: DraftPage | undefined;
  for (const b of blocks) {
    if (b.pageBreak !== undefined || !cur || cur.elements.length >= MD_MAX_ELEMENTS_PER_PAGE) {
      cur = { title: b.pageBreak ?? (cur ? `${cur.title} (cont.)` : title), elements: [] };
      pages.push(cur);
    }
    cur.elements.push(b.element);
  }
  return pages.length > 0 ? pages : [{ title, elements: [] }];
}

function splitFrontMatter(text: string): { meta: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { meta: {}, body: text };
  try {
    const [, yaml = ''] = m;
    const meta: unknown = parseYaml(yaml);
    if (meta && typeof meta === 'object' && !Array.isArray(meta))
      return { meta: meta as Record<string, unknown>, body: text.slice(m[0].length) };
  } catch {
    // Not YAML after all (a document that starts with a horizontal rule): keep it as content.
  }
  return { meta: {}, body: text };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const strList = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined);

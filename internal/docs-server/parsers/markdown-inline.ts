import type { Token, Tokens } from 'marked';

/** Plain text of inline tokens: emphasis dropped, links reduced to their text, images to alt text. */
export function plainText(tokens: readonly Token[] | undefined): string {
  if (!tokens) return '';
  return tokens.map(tokenText).join('');
}

function tokenText(t: Token): string {
  if (t.type === 'br') return '\n';
  // Inline HTML tags are markup, not text.
  if (t.type === 'html') return '';
  if (t.type === 'image') return (t as Tokens.Image).text;
  if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length > 0) return plainText(t.tokens);
  return 'text' in t && typeof t.text === 'string' ? unescapeEntities(t.text) : '';
}

// marked's inline text keeps HTML entities it produced for escaping; the model wants the characters.
function unescapeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? _);
}

export interface InlineRef {
  kind: 'link' | 'image';
  url: string;
  text: string;
  title?: string;
}

/** Links and images anywhere in the inline tokens, in document order. */
export function inlineRefs(tokens: readonly Token[] | undefined, out: InlineRef[] = []): InlineRef[] {
  for (const t of tokens ?? []) {
    if (t.type === 'image') {
      const im = t as Tokens.Image;
      out.push({ kind: 'image', url: im.href, text: im.text, ...(im.title ? { title: im.title } : {}) });
    } else if (t.type === 'link') {
      const l = t as Tokens.Link;
      out.push({ kind: 'link', url: l.href, text: plainText(l.tokens), ...(l.title ? { title: l.title } : {}) });
    } else if ('tokens' in t && Array.isArray(t.tokens)) {
      inlineRefs(t.tokens, out);
    }
  }
  return out;
}

import { Parser } from 'htmlparser2';

/**
 * Elements left out with everything inside them. Each would make the browser act on the page's CSP the
 * moment it is parsed — even in the inert document a sanitizer parses into, which inherits the page's
 * policy in chromium and reports what it blocks (a base URI, an inline style, a stylesheet, a refresh).
 */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'embed',
  'noembed',
  'noframes',
  'xmp',
]);
/** Elements left out, their content kept. */
const DROPPED = new Set(['base', 'link', 'meta', 'frame', 'frameset']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const TAG_NAME = /^[a-z][a-z0-9-]*(:[a-z0-9-]+)?$/i;
const ATTR_NAME = /^[a-z_:][-a-z0-9_:.]*$/i;

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Event handlers and inline styles: what the page's CSP would refuse, and what no document of a server needs. */
function keptAttribute(name: string): boolean {
  const n = name.toLowerCase();
  return ATTR_NAME.test(n) && !n.startsWith('on') && n !== 'style';
}

/**
 * Raw HTML from a server's markdown, re-written by a parser that builds no DOM (htmlparser2): every tag it
 * keeps is written anew with escaped attribute values and every text escaped, so the browser parses
 * only this canonical form. Handlers, inline styles and the elements above never reach any document, not
 * even the inert one DOMPurify sanitizes in. DOMPurify still runs after this: this pass is about what the
 * browser sees while sanitizing, DOMPurify about what the page shows.
 */
export function canonicalHtml(raw: string): string {
  const out: string[] = [];
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (skipping > 0 || DROPPED_WITH_CONTENT.has(name)) {
          if (!VOID.has(name)) skipping++;
          return;
        }
        if (DROPPED.has(name) || !TAG_NAME.test(name)) return;
        const attrs = Object.entries(attribs)
          .filter(([k]) => keptAttribute(k))
          .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
          .join('');
        out.push(`<${name}${attrs}>`);
      },
      ontext(text) {
        if (skipping === 0) out.push(escapeText(text));
      },
      // Elements the parser closed itself (unclosed in the source) come here too: the output is balanced.
      onclosetag(name) {
        if (skipping > 0) {
          if (!VOID.has(name)) skipping--;
          return;
        }
        if (VOID.has(name) || DROPPED.has(name) || DROPPED_WITH_CONTENT.has(name) || !TAG_NAME.test(name)) return;
        out.push(`</${name}>`);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(raw);
  parser.end();
  return out.join('');
}

import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { canonicalHtml } from './html-canonical.js';

/**
 * What a server's markdown may keep: DOMPurify's defaults (no scripts, handlers, frames, script or
 * `data:` links, however spelled, and it re-parses to catch mutation XSS) minus what could restyle
 * the page, post a form or move its base URL. The CSP is a second wall, not the first.
 */
const POLICY = {
  FORBID_TAGS: ['style', 'noscript', 'form', 'base', 'link', 'meta', 'input', 'button', 'textarea', 'select'],
  FORBID_ATTR: ['style', 'srcset', 'formaction'],
  ALLOW_DATA_ATTR: false,
};

/** Loopback names and addresses, as the URL parser normalises them (`127.1`, `2130706433` → 127.0.0.1). */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    h === '0.0.0.0' ||
    h === '[::1]' ||
    h === '[::]' ||
    /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|127\.[\d.]+)\]$/.test(h) ||
    h === '[::ffff:0:0]'
  );
}

/**
 * A link from a server's document to a loopback address (another local service, another port of this
 * machine) is shown as text, not followed: a page of this dashboard must not carry its user there.
 * Same-page anchors (`#…`) stay links.
 */
function unlinkLoopback(node: Element): void {
  for (const name of ['href', 'xlink:href']) {
    const href = node.getAttribute(name);
    if (href === null || href.trim().startsWith('#')) continue;
    let url: URL;
    try {
      url = new URL(href, document.baseURI);
    } catch {
      continue;
    }
    if (!isLoopbackHost(url.hostname)) continue;
    node.removeAttribute(name);
    node.setAttribute('title', `link to a local address, not followed: ${url.href}`);
    node.setAttribute('class', 'local-link');
    node.append(` (${url.href})`);
  }
}

DOMPurify.addHook('afterSanitizeAttributes', unlinkLoopback);

/**
 * Markdown to HTML for documents the servers wrote: marked's HTML re-written in canonical form without
 * handlers or styles (html-canonical.ts), so no document the browser builds — DOMPurify's inert one
 * included — ever holds what the page's CSP would refuse; then sanitized by DOMPurify.
 */
export function renderMarkdown(md: string): string {
  const html = marked.parse(md, { async: false }) as string;
  return DOMPurify.sanitize(canonicalHtml(html), POLICY);
}

import DOMPurify from 'dompurify';
import { marked } from 'marked';

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

/** Markdown to HTML for documents the servers wrote, sanitized by DOMPurify. */
export function renderMarkdown(md: string): string {
  const html = marked.parse(md, { async: false }) as string;
  return DOMPurify.sanitize(html, POLICY);
}

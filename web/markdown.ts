import { marked } from 'marked';

/** Markdown to HTML for documents the servers wrote: scripts, frames, handlers and script URLs removed. */
export function renderMarkdown(md: string): string {
  const html = marked.parse(md, { async: false }) as string;
  const doc = new DOMParser().parseFromString(`<div>${html}</div>`, 'text/html');
  for (const bad of doc.querySelectorAll('script, iframe, object, embed, style, link, meta, form')) bad.remove();
  for (const el of doc.querySelectorAll('*')) {
    for (const a of [...el.attributes]) {
      const v = a.value.trim().toLowerCase();
      if (
        a.name.startsWith('on') ||
        ((a.name === 'href' || a.name === 'src') && (v.startsWith('javascript:') || v.startsWith('vbscript:')))
      ) {
        el.removeAttribute(a.name);
      }
    }
  }
  return doc.body.firstElementChild?.innerHTML ?? '';
}

import type { DPEElementDetail } from '../../contract/finder/types.js';
import type { Level0, Level1, Level2 } from './levels.js';
import { elementToMarkdown, elementToText } from './render-element.js';

/** format=markdown / format=text renderings of the four levels. */

export function level0Markdown(l: Level0): string {
  const lines = [`# Documents (${l.total_count})`, ''];
  for (const d of l.documents)
    lines.push(
      `- [${d.title}](${d.uri}) — ${d.file_type}, ${d.page_count} page(s)${d.last_modified ? `, modified ${d.last_modified}` : ''}`,
    );
  return lines.join('\n');
}

export function level0Text(l: Level0): string {
  return [`${l.total_count} document(s)`, ...l.documents.map((d) => `${d.title}\t${d.file_type}\t${d.page_count}\t${d.uri}`)].join('\n');
}

export function level1Markdown(l: Level1): string {
  const lines = [`# ${l.title}`, ''];
  if (l.summary) lines.push(l.summary, '');
  lines.push(`- doc_ref: ${l.doc_ref}`, `- file_type: ${l.file_type}`, `- pages: ${l.page_count}`);
  if (l.keywords?.length) lines.push(`- keywords: ${l.keywords.join(', ')}`);
  if (l.last_modified) lines.push(`- last_modified: ${l.last_modified}`);
  lines.push(`- file: ${l.file_uri}`);
  if (l.pages) {
    lines.push('', `## Pages ${l.page_offset ?? 0}–${(l.page_offset ?? 0) + l.pages.length} of ${l.page_total ?? l.page_count}`, '');
    for (const p of l.pages) lines.push(`- [${p.page_index}. ${p.title}](${p.uri}) — ${p.element_count} element(s)`);
  }
  return lines.join('\n');
}

export function level1Text(l: Level1): string {
  const lines = [l.title];
  if (l.summary) lines.push(l.summary);
  lines.push(`${l.file_type}, ${l.page_count} page(s)`);
  for (const p of l.pages ?? []) lines.push(`${p.page_index}\t${p.title}\t${p.element_count}`);
  return lines.join('\n');
}

export function level2Markdown(l: Level2): string {
  return l.elements.map(elementToMarkdown).join('\n\n');
}

export function level2Text(l: Level2): string {
  return l.elements.map(elementToText).join('\n\n');
}

export function level3Markdown(d: DPEElementDetail): string {
  return elementToMarkdown(d);
}

export function level3Text(d: DPEElementDetail): string {
  return elementToText(d);
}

import { escapeField } from './terminal-text.js';

/** Plain aligned columns for people; scripts use --json. Cells are one line each, control characters escaped. */
export function renderTable(headers: string[], rawRows: string[][]): string {
  const rows = rawRows.map((r) => r.map(escapeField));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function ago(unixMs: number, now = Date.now()): string {
  if (!unixMs) return '-';
  const s = Math.max(0, Math.round((now - unixMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** The text up to the first line break (a one-line summary of a description). */
export function firstLine(s: string): string {
  const end = s.indexOf('\n');
  return end < 0 ? s : s.slice(0, end);
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

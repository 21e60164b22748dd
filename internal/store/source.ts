import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigIssue } from '../shared/errors.js';

/** A position in a YAML file plus the dotted field path it belongs to. */
export interface Where {
  line: number;
  column: number;
  field: string;
}

/** A string read from YAML that still may hold `${…}` placeholders. */
export interface LocStr {
  text: string;
  where: Where;
}

/** One parsed YAML file and the problems found in it so far. */
export interface Source {
  file: string;
  doc: Document;
  lc: LineCounter;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  /** The YAML is broken in a way that makes its structure unreliable: skip semantic checks. */
  broken: boolean;
}

export function parseSource(file: string, text: string): Source {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  // A repeated key leaves the structure intact; other syntax errors would only cause follow-up noise.
  const firstBreak = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
  const src: Source = { file, doc, lc, issues: [], warnings: [], broken: firstBreak !== undefined };
  // One mistake (an unclosed "[") makes the parser report dozens of follow-ups: a broken file reports
  // its first error only, where a person starts looking; repeated keys are each reported.
  for (const e of firstBreak ? [firstBreak] : doc.errors) {
    const p = lc.linePos(e.pos[0]);
    src.issues.push({
      file,
      line: p.line,
      column: p.col,
      field: '',
      message: `YAML syntax error: ${printable(e.message.split('\n')[0] ?? '')} at line ${p.line}: ${excerpt(text, p.line)}`,
      hint: e.code === 'DUPLICATE_KEY' ? 'remove or rename the repeated key' : 'fix the YAML syntax at or just before this line',
    });
  }
  return src;
}

/** Control characters the parser may quote from the file, escaped so a terminal or page shows them. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The line as the file has it, trimmed and shortened: enough to find it. */
function excerpt(text: string, line: number): string {
  const raw = (text.split('\n')[line - 1] ?? '').trim();
  return JSON.stringify(raw.length > 60 ? `${raw.slice(0, 59)}…` : raw);
}

export type YNode = Node | null | undefined;

export function whereOf(src: Source, node: YNode, field: string): Where {
  const p = src.lc.linePos(node?.range?.[0] ?? 0);
  return { line: p.line, column: p.col, field };
}

export function issueAt(w: Where, file: string, message: string, hint?: string): ConfigIssue {
  return { file, line: w.line, column: w.column, field: w.field, message, ...(hint ? { hint } : {}) };
}

export function report(src: Source, node: YNode, field: string, message: string, hint?: string): void {
  src.issues.push(issueAt(whereOf(src, node, field), src.file, message, hint));
}

export function warn(src: Source, node: YNode, field: string, message: string, hint?: string): void {
  src.warnings.push(issueAt(whereOf(src, node, field), src.file, message, hint));
}

/** Follows `*alias` references so anchors work anywhere a value is expected. */
export function deref(src: Source, node: unknown): YNode {
  if (isAlias(node)) return (node.resolve(src.doc) as Node | undefined) ?? null;
  return (node as YNode) ?? null;
}

export function isNull(node: YNode): boolean {
  return node == null || (isScalar(node) && node.value === null);
}

/** Human name of what a node is, for "must be X, got Y" messages. */
export function describeNode(node: YNode): string {
  if (isNull(node)) return 'nothing (null)';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return `the string "${v}"`;
    if (typeof v === 'boolean') return `the boolean ${String(v)}`;
    if (typeof v === 'number') return `the number ${node.source ?? String(v)}`;
  }
  return 'an unsupported value';
}

export function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

#!/usr/bin/env node
// Writes the programs-and-rooms table of docs/architecture.md from scripts/layers.mjs, between the
// markers below; with --check it only says whether the table there is current (make lint), so the docs
// cannot drift from the rules ESLint and check-layers.mjs enforce.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_LAYERS, PRODUCTS, PROGRAMS, PURE_DIRS } from './layers.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(repo, 'docs/architecture.md');
const BEGIN = '<!-- layers:begin (written by scripts/architecture-table.mjs from scripts/layers.mjs; do not edit) -->';
const END = '<!-- layers:end -->';

const code = (s) => `\`${s}\``;
const list = (xs) => (xs.length === 0 ? 'nothing else of `internal/`' : xs.map(code).join(', '));

/** The generated Markdown: rooms, who may import whom, the core's layers, the pure folders. */
export function architectureTable() {
  const rows = [
    '| room | folder | what | may import |',
    '|---|---|---|---|',
    ...Object.entries(PRODUCTS).map(([name, p]) => `| ${code(name)} | ${code(p.dir)} | ${p.what} | ${list(p.may)} |`),
  ];
  const programs = [
    '| entry | may use (besides `contract` and `shared`) |',
    '|---|---|',
    ...Object.entries(PROGRAMS).map(([dir, may]) => `| ${code(dir)} | ${list(may)} |`),
  ];
  const layers = [
    '| core layer | folder | may import |',
    '|---|---|---|',
    ...Object.entries(CORE_LAYERS).map(
      ([name, l]) => `| ${code(name)} | ${code(l.dir)} | ${l.may.length ? l.may.map(code).join(', ') : 'no other layer'} |`,
    ),
  ];
  return [
    ...rows,
    '',
    ...programs,
    '',
    ...layers,
    '',
    `Pure (no I/O; no package but \`node:crypto\`): ${PURE_DIRS.map(code).join(', ')}.`,
  ].join('\n');
}

function current(doc) {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/architecture.md: the markers ${BEGIN} … ${END} are missing`);
  return { before: doc.slice(0, a + BEGIN.length), inside: doc.slice(a + BEGIN.length, b), after: doc.slice(b) };
}

const doc = readFileSync(DOC, 'utf8');
const parts = current(doc);
const wanted = `\n${architectureTable()}\n`;
if (process.argv.includes('--check')) {
  if (parts.inside !== wanted) {
    console.error('docs/architecture.md: the layer table differs from scripts/layers.mjs; run `node scripts/architecture-table.mjs`');
    process.exit(1);
  }
  console.log('architecture: the layer table matches scripts/layers.mjs');
} else if (parts.inside !== wanted) {
  writeFileSync(DOC, parts.before + wanted + parts.after);
  console.log('docs/architecture.md: layer table written');
}

#!/usr/bin/env node
// Writes "The door" table of docs/architecture.md from the code, between the markers below: the faces
// (the `Face` type), the interceptors in the order the composition root composes them (`doorInterceptors`
// in internal/core/app/bootstrap.ts, each with its file's summary) and the area methods declared
// `admission: 'core'`. With --check it only says whether the table there is current (make lint).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(repo, 'docs/architecture.md');
const BEGIN = '<!-- door:begin (written by scripts/door-table.mjs from the code; do not edit) -->';
const END = '<!-- door:end -->';
const read = (rel) => readFileSync(join(repo, rel), 'utf8');
const fail = (msg) => {
  console.error(`door-table: ${msg}`);
  process.exit(1);
};

/** The faces: the members of `export type Face = …` in the control contract. */
function faces() {
  const m = read('internal/contract/control/control.ts').match(/export type Face = ([^;]+);/);
  if (!m) fail('internal/contract/control/control.ts has no `export type Face`');
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
}

/** `doorInterceptors`' list, in order: each call's function, found in its door/ file, with that file's summary. */
function interceptors() {
  const src = read('internal/core/app/bootstrap.ts');
  const body = src.match(/function doorInterceptors\([^)]*\)[^{]*\{\s*return \[([\s\S]*?)\];/);
  if (!body) fail('internal/core/app/bootstrap.ts has no `doorInterceptors` returning a list');
  const names = [...body[1].matchAll(/(\w+)\(/g)].map((x) => x[1]).filter((n, i, all) => all.indexOf(n) === i && /Interceptor$/.test(n));
  const dir = 'internal/core/app/door';
  const files = readdirSync(join(repo, dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return names.map((fn) => {
    const file = files.find((f) => new RegExp(`export function ${fn}\\(`).test(read(`${dir}/${f}`)));
    if (!file) fail(`${fn} (doorInterceptors) is defined in no file of ${dir}/`);
    const text = read(`${dir}/${file}`);
    // The doc comment right above the function (not one further up the file).
    const doc = text.slice(0, text.indexOf(`export function ${fn}(`)).match(/\/\*\*((?:(?!\/\*\*)[\s\S])*?)\*\/\s*$/);
    const summary = (doc?.[1] ?? '')
      .replace(/\n\s*\* ?/g, ' ')
      .trim()
      .split(/(?<=\.)\s/)[0];
    return { fn, file: `${dir}/${file}`, summary };
  });
}

/** Area methods declared `admission: 'core'`, by file. */
function coreMethods() {
  const dir = 'internal/contract/areas';
  const out = [];
  for (const f of readdirSync(join(repo, dir))
    .filter((x) => x.endsWith('.ts') && !x.endsWith('.test.ts'))
    .sort()) {
    for (const m of read(`${dir}/${f}`).matchAll(/name: '([^']+)',\s*(?:\/\/[^\n]*\n\s*)*admission: 'core'/g)) out.push(m[1]);
  }
  return out.sort();
}

export function doorTable() {
  const code = (s) => `\`${s}\``;
  const rows = interceptors().map((i, k) => `| ${k + 1} | ${code(i.fn)} | ${code(i.file)} | ${i.summary} |`);
  return [
    `Faces (each given \`Door.for(face)\`): ${faces().map(code).join(', ')}.`,
    '',
    '| order | interceptor | file | what it does |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Calls declared \`admission: 'core'\` (the stop's gate applies): ${coreMethods().map(code).join(', ')}.`,
  ].join('\n');
}

const doc = readFileSync(DOC, 'utf8');
const a = doc.indexOf(BEGIN);
const b = doc.indexOf(END);
if (a < 0 || b < a) fail(`docs/architecture.md: the markers ${BEGIN} … ${END} are missing`);
const inside = doc.slice(a + BEGIN.length, b);
const wanted = `\n${doorTable()}\n`;
if (process.argv.includes('--check')) {
  if (inside !== wanted) fail('docs/architecture.md: the door table differs from the code; run `node scripts/door-table.mjs`');
  console.log('architecture: the door table matches the code');
} else if (inside !== wanted) {
  writeFileSync(DOC, doc.slice(0, a + BEGIN.length) + wanted + doc.slice(b));
  console.log('docs/architecture.md: door table written');
}

#!/usr/bin/env node
// Enforces the dependency direction cmd → app → domain ← infra and the absence of import cycles.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const files = [];
const walk = (d) => {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) files.push(p);
  }
};
for (const top of ['cmd', 'internal']) walk(join(root, top));

const layerOf = (p) => {
  const r = relative(root, p);
  if (r.startsWith('cmd/')) return 'cmd';
  if (r.startsWith('internal/app/')) return 'app';
  if (r.startsWith('internal/domain/')) return 'domain';
  if (r.startsWith('internal/infra/')) return 'infra';
  if (r.startsWith('internal/gen/')) return 'gen';
  return 'other';
};
// What each layer may import (besides itself and packages).
const allowed = {
  cmd: ['app', 'domain', 'infra', 'gen'],
  app: ['domain', 'infra', 'gen'],
  domain: [],
  infra: ['domain', 'gen'],
  gen: [],
  other: ['cmd', 'app', 'domain', 'infra', 'gen'],
};
const problems = [];
const graph = new Map();
for (const f of files) {
  const src = readFileSync(f, 'utf8');
  const deps = [];
  for (const m of src.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2];
    const target = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
    deps.push(target);
    const from = layerOf(f);
    const to = layerOf(target);
    if (from !== to && !allowed[from].includes(to)) {
      problems.push(`${relative(root, f)}: ${from} must not import ${to} (${spec})`);
    }
  }
  graph.set(f, deps);
}
// Cycle detection (DFS with colours).
const colour = new Map();
const stack = [];
const visit = (n) => {
  colour.set(n, 1);
  stack.push(n);
  for (const d of graph.get(n) ?? []) {
    if (!graph.has(d)) continue;
    if (colour.get(d) === 1) {
      const cyc = stack
        .slice(stack.indexOf(d))
        .concat(d)
        .map((p) => relative(root, p));
      problems.push(`import cycle: ${cyc.join(' → ')}`);
    } else if (!colour.get(d)) visit(d);
  }
  stack.pop();
  colour.set(n, 2);
};
for (const n of graph.keys()) if (!colour.get(n)) visit(n);

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`layers ok: ${files.length} files, no forbidden imports, no cycles`);

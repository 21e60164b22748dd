#!/usr/bin/env node
// Import cycles, which ESLint core cannot see without an import plugin, and (exactly, on resolved paths) the
// layer direction of scripts/layers.mjs that eslint.config.mjs checks by import-path pattern.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DOMAIN_PACKAGES, LAYERS, layerOf as layerOfRel } from './layers.mjs';

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

const layerOf = (p) => layerOfRel(relative(root, p)) ?? 'other';
const mayImport = (from, to) => from === to || from === 'other' || LAYERS[from].may.includes(to);
const problems = [];
const graph = new Map();
for (const f of files) {
  const src = readFileSync(f, 'utf8');
  const deps = [];
  const from = layerOf(f);
  for (const m of src.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith('.')) {
      // Domain is pure: a package other than DOMAIN_PACKAGES would be I/O or a framework.
      if (from === 'domain' && !DOMAIN_PACKAGES.includes(spec)) {
        problems.push(`${relative(root, f)}: domain must not import the package ${spec} (only ${DOMAIN_PACKAGES.join(', ')})`);
      }
      continue;
    }
    const target = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
    deps.push(target);
    const to = layerOf(target);
    if (!mayImport(from, to)) problems.push(`${relative(root, f)}: ${from} must not import ${to} (${spec})`);
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

#!/usr/bin/env node
// The rooms of scripts/layers.mjs, checked exactly on resolved paths: products never import each other
// (contract and shared aside), the core's layers point down, pure folders do no I/O, each cmd/<bin> uses its
// own product; and import cycles, which ESLint core cannot see without an import plugin.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CORE_LAYERS, DOMAIN_PACKAGES, DOOR, allowedFor, coreLayerOf, isPure, mayImportCore, productOf } from './layers.mjs';

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

const rel = (p) => relative(root, p);
const problems = [];
const graph = new Map();
const packagesOf = new Map();
const sharedUsedByPure = new Map();

function checkEdge(fromRel, toRel, spec) {
  const allowed = allowedFor(fromRel);
  const to = productOf(toRel) ?? (toRel.startsWith('cmd/') ? 'cmd' : 'other');
  const own = toRel.startsWith('cmd/') && fromRel.split('/')[1] === toRel.split('/')[1];
  if (allowed && !own && !allowed.includes(to)) {
    problems.push(`${fromRel}: ${productOf(fromRel) ?? fromRel.split('/').slice(0, 2).join('/')} must not import ${to} (${spec})`);
  }
  const fromLayer = coreLayerOf(fromRel);
  const toLayer = coreLayerOf(toRel);
  if (fromLayer && toLayer && fromLayer !== toLayer && !CORE_LAYERS[fromLayer].may.includes(toLayer)) {
    problems.push(`${fromRel}: core ${fromLayer} must not import core ${toLayer} (${spec}); the direction is app → infra → domain`);
  }
  if (toRel === DOOR.core && !mayImportCore(fromRel)) {
    problems.push(
      `${fromRel}: only the composition root and the door may import Core (${spec}); a face is given the door (Door.for(face))`,
    );
  }
  if (isPure(fromRel) && toRel.startsWith('internal/shared/')) sharedUsedByPure.set(toRel, fromRel);
  else if (isPure(fromRel) && !isPure(toRel)) problems.push(`${fromRel}: pure code must not import ${toRel} (${spec})`);
}

for (const f of files) {
  const src = readFileSync(f, 'utf8');
  const deps = [];
  for (const m of src.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith('.')) {
      if (!DOMAIN_PACKAGES.includes(spec)) packagesOf.set(rel(f), [...(packagesOf.get(rel(f)) ?? []), spec]);
      // Pure code: a package other than DOMAIN_PACKAGES would be I/O or a framework.
      if (isPure(rel(f)) && !DOMAIN_PACKAGES.includes(spec)) {
        problems.push(`${rel(f)}: pure code must not import the package ${spec} (only ${DOMAIN_PACKAGES.join(', ')})`);
      }
      continue;
    }
    const target = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
    deps.push(target);
    checkEdge(rel(f), rel(target), spec);
  }
  graph.set(f, deps);
}
for (const [shared, user] of sharedUsedByPure) {
  for (const pkg of packagesOf.get(shared) ?? []) problems.push(`${user}: pure code must not use ${shared}, which imports ${pkg}`);
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
        .map((p) => rel(p));
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
console.log(`layers ok: ${files.length} files, products apart, core layers downward, faces given the door, pure folders pure, no cycles`);

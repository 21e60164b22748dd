#!/usr/bin/env node
// The product ships only product: dist/cmd and dist/internal (what package.json "files" publishes) must
// hold no test files, no fakes/test helpers and no import of anything under test/. Test helpers live in
// test/support, fixtures in test/fixtures (compiled to dist/test/, which is not published).
// --prune first deletes compiled modules whose source is gone (tsc --incremental never does), so a
// helper moved out of internal/ does not linger in an old dist/.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(repo, 'dist');
const SHIPPED = ['cmd', 'internal'];
// Names that say "this is for tests" in any of the spellings the repository has used.
const TEST_NAME = /(^|[-.])(test|tests|fake|fakes|oracle|mock|mocks|stub|stubs)([-.]|$)|test-support|test-helpers/;
const TEST_IMPORT = /(?:from\s+|import\(\s*)['"][^'"]*\/test\/[^'"]*['"]/;

function jsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .flatMap((p) => (statSync(p).isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : []));
}

function sourceOf(js) {
  const stem = join(repo, relative(dist, js)).replace(/\.js$/, '');
  return ['.ts', '.tsx', '.mts'].some((ext) => existsSync(stem + ext));
}

const problems = [];
for (const top of SHIPPED) {
  for (const file of jsFiles(join(dist, top))) {
    const rel = relative(repo, file);
    // The programs' shared chunks come from scripts/build-bundles.mjs, not from one source file each.
    const bundleChunk = relative(join(dist, 'cmd', 'chunks'), file).startsWith('..') === false;
    if (process.argv.includes('--prune') && !bundleChunk && !sourceOf(file)) {
      rmSync(file);
      rmSync(`${file}.map`, { force: true });
      continue;
    }
    const base = file.slice(file.lastIndexOf('/') + 1, -'.js'.length);
    if (TEST_NAME.test(base)) problems.push(`${rel}: a test file or helper in the shipped tree (move its source under test/)`);
    else if (TEST_IMPORT.test(readFileSync(file, 'utf8')))
      problems.push(`${rel}: imports from test/ (product code must not depend on test helpers)`);
  }
}
if (!existsSync(join(dist, 'internal'))) {
  console.error('check-dist: dist/internal is missing; run `make build` first');
  process.exit(1);
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`dist ok: ${SHIPPED.map((t) => `dist/${t}`).join(', ')} hold product code only`);

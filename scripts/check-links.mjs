#!/usr/bin/env node
// Every relative link in README.md and docs/*.md must point at a file or folder the repository has:
// docs that name files which are gone send readers nowhere. External links (scheme:) and pure
// anchors are not checked; a link's #fragment is ignored.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

function markdownFiles(dir) {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .flatMap((p) => (statSync(p).isDirectory() ? markdownFiles(p) : p.endsWith('.md') ? [p] : []));
}

function brokenLinks(file) {
  const broken = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) return;
    // Inline code shows link syntax as an example; it is not a link.
    for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(LINK)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const path = decodeURIComponent(target.split('#')[0]);
      if (!existsSync(resolve(dirname(file), path))) broken.push(`${relative(repo, file)}:${i + 1}: ${target}`);
    }
  });
  return broken;
}

// A file or folder named in backticks with a repository path (`internal/core/app/core.ts`, `docs/x.md`)
// must exist too; patterns (`*`, `<area>`, `{a,b}`) and paths under dist/ or .tmp/ are not checked.
const CITED = /`((?:internal|cmd|test|scripts|bench|docs|web|proto|design)\/[^`\s]*)`/g;

function missingCitations(file) {
  const missing = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      for (const [, path] of line.matchAll(CITED)) {
        if (/[*<>{}]/.test(path)) continue;
        const clean = path.replace(/[:#].*$/, '').replace(/[.,;)]+$/, '');
        if (!existsSync(join(repo, clean))) missing.push(`${relative(repo, file)}:${i + 1}: ${path}`);
      }
    });
  return missing;
}

// A source file named by part of its path (`rpc/session-requests.ts`, `pool.ts`) — in backticks
// in the docs, and in backticks or after a folder the repository has in code comments — must be the end of
// some file's path: a comment or a doc naming a file that moved or went sends its reader nowhere.
const SOURCE_FILE = /^(?:[\w.-]+\/)*[\w.-]+\.(?:ts|tsx|mjs|proto)$/;
const BACKTICKED = /`([^`\s]+)`/g;
const BARE_PATH = /(?:^|[\s('"])((?:[\w.-]+\/)+[\w.-]+\.(?:ts|tsx|mjs|proto))(?=$|[\s'",;:)])/g;
const repoFiles = [];
const repoFolders = new Set();
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (['node_modules', '.git', 'dist', '.tmp'].includes(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      repoFolders.add(name);
      walk(p);
    } else repoFiles.push(relative(repo, p));
  }
})(repo);
const known = (path) => repoFiles.some((f) => f === path || f.endsWith(`/${path}`));

function staleSourceNames(file, inComments) {
  const stale = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const text = inComments ? commentOf(line) : line;
      if (!text) return;
      const names = [...text.matchAll(BACKTICKED)].map((m) => m[1].replace(/[:#].*$/, ''));
      if (inComments) names.push(...[...text.matchAll(BARE_PATH)].map((m) => m[1]).filter((p) => repoFolders.has(p.split('/')[0])));
      for (const name of names) {
        const path = name.replace(/^\.\//, '');
        if (path.includes('...')) continue; // an elided path (`contract/gen/.../session.ts`)
        // Another project's file (`packages/core/src/…` of a client) is not this repository's to check.
        const foreign = path.includes('/') && !repoFolders.has(path.split('/')[0]);
        if (!SOURCE_FILE.test(path) || path.startsWith('dist/') || foreign || known(path)) continue;
        stale.push(`${relative(repo, file)}:${i + 1}: ${name}`);
      }
    });
  return stale;
}

/** The comment part of a line of code (after `//`, or a `/* … *` block line). */
function commentOf(line) {
  const slashes = line.indexOf('// ');
  if (slashes >= 0) return line.slice(slashes);
  return /^\s*(\/\*|\*)/.test(line) ? line : '';
}

const files = [join(repo, 'README.md'), ...(existsSync(join(repo, 'docs')) ? markdownFiles(join(repo, 'docs')) : [])];
const codeFiles = ['internal', 'cmd', 'web', 'scripts', 'bench', 'test']
  .flatMap((d) => sourceFiles(join(repo, d)))
  .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && !f.includes('/fixtures/'));
const staleNames = [...files.flatMap((f) => staleSourceNames(f, false)), ...codeFiles.flatMap((f) => staleSourceNames(f, true))];
if (staleNames.length > 0) {
  console.error(
    `source files named in docs or comments that the repository does not have (fix the name or drop it):\n  ${staleNames.join('\n  ')}`,
  );
  process.exit(1);
}
const cited = files.flatMap(missingCitations);
if (cited.length > 0) {
  console.error(`files named in the docs that the repository does not have (fix the path or drop the name):\n  ${cited.join('\n  ')}`);
  process.exit(1);
}
// Issue numbers belong in commit messages: a reader of the docs or the code has no issue tracker, so
// a bare tracker number sends them nowhere. Say what the rule or the case is instead.
const ISSUE = /\bissues? #?\d/i;
const SOURCES = ['internal', 'cmd', 'web', 'scripts', 'bench', 'test'].flatMap((d) => sourceFiles(join(repo, d)));

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name !== 'node_modules' && name !== 'gen')
    .map((name) => join(dir, name))
    .flatMap((p) => (statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|tsx|mjs|md)$/.test(p) ? [p] : []));
}

const issues = [...files, ...SOURCES].flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (ISSUE.test(line) ? [`${relative(repo, file)}:${i + 1}: ${line.trim().slice(0, 100)}`] : [])),
);
if (issues.length > 0) {
  console.error(`issue numbers cited in docs or code (say what the rule or the case is instead):\n  ${issues.join('\n  ')}`);
  process.exit(1);
}
const broken = files.flatMap(brokenLinks);
if (broken.length > 0) {
  console.error(`broken relative links (fix the path or drop the link):\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
console.log(`links: ${files.length} files, every relative link resolves`);

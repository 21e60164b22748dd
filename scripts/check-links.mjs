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

const files = [join(repo, 'README.md'), ...(existsSync(join(repo, 'docs')) ? markdownFiles(join(repo, 'docs')) : [])];
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

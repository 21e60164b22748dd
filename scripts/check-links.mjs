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

const files = [join(repo, 'README.md'), ...(existsSync(join(repo, 'docs')) ? markdownFiles(join(repo, 'docs')) : [])];
const broken = files.flatMap(brokenLinks);
if (broken.length > 0) {
  console.error(`broken relative links (fix the path or drop the link):\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
console.log(`links: ${files.length} files, every relative link resolves`);

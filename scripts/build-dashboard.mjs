#!/usr/bin/env node
// Bundles the dashboard (web/) into dist/dashboard: the script, the stylesheet, the page, and the chunks the
// script loads when it needs them (the MCP App bridge, four times the rest, only when a tool's app opens).
// No CDN: works offline.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const out = resolve(root, 'dist/dashboard');
// Chunk names carry a hash: the last build's must not linger beside this one's.
rmSync(resolve(out, 'chunks'), { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [resolve(root, 'web/main.tsx')],
  outdir: out,
  entryNames: 'app',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const f of ['index.html', 'app.css']) copyFileSync(resolve(root, 'web', f), resolve(out, f));

#!/usr/bin/env node
// Bundles the dashboard (web/) into dist/dashboard: one script, one stylesheet, the page. No CDN: works offline.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const out = resolve(root, 'dist/dashboard');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [resolve(root, 'web/main.tsx')],
  outfile: resolve(out, 'app.js'),
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

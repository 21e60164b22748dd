#!/usr/bin/env node
// Bundles each program (cmd/*/main.ts) into dist/cmd/<program>/main.js with esbuild (decision 48): one file
// per program plus shared chunks (dist/cmd/chunks/) that dynamic imports load only when a command needs
// them. Node then resolves and compiles a handful of files instead of hundreds of modules, which is where
// start-up time went. tsc still compiles every module to dist/ (tests, the mcpd/smcp library, the docs
// parse worker); this runs after it and writes the programs' entry files over tsc's. `mcpdmcp` is a second
// build of its own, so a stdio session loads a few files (below).
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(root, 'dist/cmd');
export const PROGRAMS = ['mcpd', 'mcpdmcp', 'mcpdctl', 'mcpd-docs', 'mcpd-desktop-host', 'mcpd-smcp'];
export const CHUNK_DIR = 'chunks';
// Left to Node's resolver from node_modules: dbus-next requires optional native modules (x11, usocket),
// pdfjs-dist finds its worker and fonts beside itself, exceljs is large and loaded only to parse a sheet,
// jsonc-parser's main build is a UMD factory whose require('./impl/…') calls a bundle cannot follow.
const EXTERNAL = ['dbus-next', 'pdfjs-dist', 'pdfjs-dist/*', 'exceljs', 'jsonc-parser'];

/**
 * Modules find files next to themselves with `new URL(rel, import.meta.url)`. Every bundle file sits two
 * levels under dist/ (dist/cmd/<program>/main.js, dist/cmd/chunks/*.js), so each module's import.meta.url
 * is rewritten to the URL its tsc output has (dist/<path>.js): the relative paths keep meaning what they
 * mean in the source layout.
 */
const sourceLayoutMetaUrl = {
  name: 'source-layout-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const asBuilt = `../../${relative(root, args.path).replace(/\.ts$/, '.js')}`;
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(asBuilt)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * CommonJS dependencies that read files beside themselves (grpc-js and its health and reflection services
 * load .proto files, socket.io serves its client) use __dirname, which an ES module lacks. Each such module
 * gets its own __dirname back, found at run time from its package's entry point (require.resolve from the
 * bundle), so the bundle works wherever npm put the package.
 */
const dependencyDirname = {
  name: 'dependency-dirname',
  setup(b) {
    b.onLoad({ filter: /[/\\]node_modules[/\\].*\.c?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const pkg = packageOf(args.path);
      const main = dirname(createRequire(`${root}/`).resolve(pkg.name));
      const rel = relative(main, dirname(args.path));
      const path = `require("node:path")`;
      const prefix =
        `var __dirname = ${path}.join(${path}.dirname(require.resolve(${JSON.stringify(pkg.name)})), ${JSON.stringify(rel)}), ` +
        `__filename = ${path}.join(__dirname, ${JSON.stringify(basename(args.path))});\n`;
      return { contents: prefix + text, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** The nearest package.json above `file` that names a package. */
function packageOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const json = join(dir, 'package.json');
    if (!existsSync(json)) continue;
    const pkg = JSON.parse(readFileSync(json, 'utf8'));
    if (pkg.name) return pkg;
  }
  throw new Error(`build-bundles: no package.json names the package of ${file}`);
}

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // CommonJS dependencies (grpc-js, protobufjs, …) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __mcpdRequire } from 'node:module';\nconst require = __mcpdRequire(import.meta.url);" },
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  write: false,
  external: EXTERNAL,
};

/**
 * `mcpdmcp` is a build of its own. Every MCP client session spawns one, so its memory counts per open
 * editor: in the shared build, what it loads came in some thirty chunks (esbuild gives each set of entry
 * points that reach a module a chunk of its own, and six programs share the gateway's modules), and
 * resolving that many ES modules made V8 optimise Node's own URL and path helpers, which pages the
 * optimizing compiler in (docs/benchmarks.md, "Start-up"). On its own, what a stdio session loads is the
 * entry, the stdio gateway's chunk and what the two share; the SDK schemas stdio-params.ts loads on first
 * use stay chunks of their own. Every other module the program imports lazily (`--http`, other eras) is
 * an entry of the shared build with a fixed name, which the program's build leaves to Node as an
 * external import: the SDK's Server and the HTTP code then share no chunk with the stdio gateway.
 */
const GATEWAY_MAIN = 'cmd/mcpdmcp/main.ts';
const STDIO_GATEWAY = '../../internal/gateway/stdio-gateway.js';
const gatewayLazy = [
  ...readFileSync(resolve(root, GATEWAY_MAIN), 'utf8').matchAll(/\bimport\(\s*'(\.\.\/\.\.\/internal\/[^']+\.js)'\s*\)/g),
]
  .map((m) => m[1])
  .filter((spec) => spec !== STDIO_GATEWAY)
  .map((spec) => ({ spec, source: resolve(root, 'cmd/mcpdmcp', spec).replace(/\.js$/, '.ts') }))
  .map((m) => ({ ...m, out: `${CHUNK_DIR}/mcpdmcp-${basename(m.source, '.ts')}` }));

const lazyGatewayParts = {
  name: 'mcpdmcp-lazy-parts',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer !== resolve(root, GATEWAY_MAIN)) return undefined;
      if (args.path === STDIO_GATEWAY) return undefined;
      const part = gatewayLazy.find((m) => m.spec === args.path);
      // The list above is read from the source with a pattern: an import it missed would land in this build.
      if (!part) throw new Error(`build-bundles: ${GATEWAY_MAIN} imports ${args.path} in a form the lazy-part pattern does not read`);
      return { path: `../${part.out}.js`, external: true };
    });
  },
};

const programs = build({
  ...common,
  entryPoints: [
    ...PROGRAMS.filter((p) => p !== 'mcpdmcp').map((p) => ({ in: `cmd/${p}/main.ts`, out: `${p}/main` })),
    ...gatewayLazy.map((m) => ({ in: m.source, out: m.out })),
  ],
  chunkNames: `${CHUNK_DIR}/[name]-[hash]`,
  plugins: [sourceLayoutMetaUrl, dependencyDirname],
});
const gateway = build({
  ...common,
  entryPoints: [{ in: GATEWAY_MAIN, out: 'mcpdmcp/main' }],
  chunkNames: `${CHUNK_DIR}/mcpdmcp-[name]-[hash]`,
  plugins: [lazyGatewayParts, sourceLayoutMetaUrl, dependencyDirname],
});

const results = await Promise.all([programs, gateway]);
const result = {
  outputFiles: results.flatMap((r) => r.outputFiles),
  metafile: {
    inputs: Object.assign({}, ...results.map((r) => r.metafile.inputs)),
    outputs: Object.assign({}, ...results.map((r) => r.metafile.outputs)),
  },
};
writeOutputs(result.outputFiles);

/**
 * Programs may be running from dist/ while it is rebuilt (the test suite packs the package while other
 * tests spawn the programs): a file is replaced only when its bytes change, by an atomic rename, and chunks
 * of the previous build (content-hashed names) are removed only after the new entry files are in place.
 */
function writeOutputs(files) {
  const wanted = new Set(files.map((f) => f.path));
  for (const f of files) {
    if (existsSync(f.path) && Buffer.compare(readFileSync(f.path), f.contents) === 0) continue;
    mkdirSync(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents, { mode: f.path.endsWith('/main.js') ? 0o755 : 0o644 });
    renameSync(tmp, f.path);
  }
  const chunks = resolve(outdir, CHUNK_DIR);
  for (const name of existsSync(chunks) ? readdirSync(chunks) : []) if (!wanted.has(join(chunks, name))) rmSync(join(chunks, name));
}

if (process.env.BUNDLE_META) (await import('node:fs')).writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile));
if (process.argv.includes('--sizes')) {
  for (const [file, out] of Object.entries(result.metafile.outputs))
    if (file.endsWith('.js')) console.log(`${(out.bytes / 1024).toFixed(0).padStart(6)} KiB  ${file}`);
}
if (process.argv.includes('--audit')) {
  for (const input of Object.keys(result.metafile.inputs)) {
    if (!input.startsWith('node_modules/')) continue;
    const t = readFileSync(resolve(root, input), 'utf8');
    if (/__dirname|__filename|import\.meta\.url|require\.resolve/.test(t)) console.log(`audit: ${input}`);
  }
}

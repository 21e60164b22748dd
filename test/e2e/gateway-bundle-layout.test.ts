import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIST, MCPDMCP } from '../support/paths.js';

// What a stdio `mcpdmcp` session loads, read from the built bundle (scripts/build-bundles.mjs): the program's
// static imports, then the stdio gateway it imports once the client has spoken. Every ES module resolved
// costs Node's loader URL and path work, and on the thirty chunks of the shared build that was enough for
// V8 to optimise those helpers and page its optimizing compiler in (docs/benchmarks.md, "Start-up").

const STATIC_IMPORT = /^import\s+(?:[^'"]*?from\s+)?["'](\.{1,2}\/[^"']+)["'];?$/gm;
const STDIO_GATEWAY = /import\(["'](\.{1,2}\/[^"']*stdio-gateway[^"']*)["']\)/;

/** The file and every file it imports statically, transitively. */
function staticClosure(file: string, into = new Set<string>()): Set<string> {
  if (into.has(file)) return into;
  into.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) staticClosure(resolve(dirname(file), spec!), into);
  return into;
}

/** The source modules a bundle file holds (esbuild marks each with a `// path` line). */
function modulesIn(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\/\/ ((?:internal|cmd|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
}

describe('the stdio gateway bundle', () => {
  const start = staticClosure(MCPDMCP);
  const main = readFileSync(MCPDMCP, 'utf8');
  const gatewaySpec = STDIO_GATEWAY.exec(main)?.[1];
  const gateway = gatewaySpec ? staticClosure(resolve(dirname(MCPDMCP), gatewaySpec), new Set(start)) : new Set<string>();
  const loaded = [...gateway].map((f) => relative(DIST, f));

  it('answers `initialize` from a few files and serves stdio from a few more', () => {
    expect(gatewaySpec, 'dist/cmd/mcpdmcp/main.js imports the stdio gateway lazily').toBeDefined();
    expect(start.size, `before initialize: ${[...start].map((f) => relative(DIST, f)).join(', ')}`).toBeLessThanOrEqual(4);
    expect(loaded.length, `a stdio session: ${loaded.join(', ')}`).toBeLessThanOrEqual(6);
  });

  it('loads neither the HTTP gateway, the SDK, zod nor the 2026-07-28 layer on stdio', () => {
    const modules = [...gateway].flatMap(modulesIn);
    expect(modules).toContain('internal/gateway/stdio-gateway.ts');
    const foreign = modules.filter((m) =>
      /^internal\/gateway\/(http-|serve-http|mcp-gateway|era2026\/)|^node_modules\/(@modelcontextprotocol\/sdk|zod|ajv)\//.test(m),
    );
    expect(foreign).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCPD } from '../support/paths.js';

// What the core loads when it starts, read from the built bundle (scripts/build-bundles.mjs): `mcpd`'s entry
// imports the core (bootstrap) lazily, and everything that chunk imports statically is loaded and evaluated
// before the core serves, whatever its servers are. SDK v2 is needed only for a server that speaks
// 2026-07-28, socket.io-client only for runtime.yaml `smcp:` computers, Socket.IO's server only once a
// dashboard page opens its socket; loaded at start the three cost every core some 13 MB of RSS
// (docs/benchmarks.md, the density case).

const STATIC_IMPORT = /^import\s+(?:[^'"]*?from\s+)?["'](\.{1,2}\/[^"']+)["'];?$/gm;
const DYNAMIC_IMPORT = /import\(["'](\.{1,2}\/[^"']+)["']\)/g;

/** The file and every file it imports statically, transitively. */
function staticClosure(file: string, into = new Set<string>()): Set<string> {
  if (into.has(file)) return into;
  into.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) staticClosure(resolve(dirname(file), spec!), into);
  return into;
}

/** The files `files` import lazily (`import("…")`), outside `files` themselves. */
function lazyImports(files: Set<string>): string[] {
  const out = new Set<string>();
  for (const f of files) for (const [, spec] of readFileSync(f, 'utf8').matchAll(DYNAMIC_IMPORT)) out.add(resolve(dirname(f), spec!));
  return [...out].filter((f) => !files.has(f));
}

/** The source modules a bundle file holds (esbuild marks each with a `// path` line). */
function modulesIn(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\/\/ ((?:internal|cmd|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
}

describe('the core bundle', () => {
  const bootstrap = lazyImports(staticClosure(MCPD)).find((f) => modulesIn(f).includes('internal/core/app/bootstrap.ts'));
  const atStart = bootstrap ? staticClosure(bootstrap) : new Set<string>();
  const modules = [...atStart].flatMap(modulesIn);

  it('starts without SDK v2, which it loads when a server speaks 2026-07-28', () => {
    expect(bootstrap, 'dist/cmd/mcpd/main.js imports the core (bootstrap.ts) lazily').toBeDefined();
    expect(modules).toContain('internal/core/infra/mcp/launcher.ts');
    expect(modules.filter((m) => m.startsWith('node_modules/@modelcontextprotocol/client/'))).toEqual([]);
    expect(modules).not.toContain('internal/core/infra/mcp/modern-client.ts');
    const later = lazyImports(atStart).flatMap(modulesIn);
    expect(later, 'the launcher imports modern-client.ts when it needs it').toContain('internal/core/infra/mcp/modern-client.ts');
  });

  it('starts without socket.io-client, which an SMCP computer link loads when it connects', () => {
    expect(modules).toContain('internal/core/infra/smcp-computer/computer-link.ts');
    expect(modules.filter((m) => /^node_modules\/(socket\.io-client|engine\.io-client)\//.test(m))).toEqual([]);
  });

  it('starts without gRPC health and reflection, which the first gRPC connection loads (a gateway speaks a Session)', () => {
    expect(modules).toContain('internal/core/infra/rpc/control-server.ts');
    expect(modules).not.toContain('internal/core/infra/rpc/reflection.ts');
    expect(modules.filter((m) => /^node_modules\/(@grpc\/reflection|grpc-health-check)\//.test(m))).toEqual([]);
    expect(lazyImports(atStart).flatMap(modulesIn)).toContain('internal/core/infra/rpc/reflection.ts');
  });

  it("starts without Socket.IO's server, which the dashboard loads when a page opens its socket", () => {
    expect(modules).toContain('internal/core/infra/dashboard/dashboard.ts');
    expect(modules.filter((m) => /^node_modules\/(socket\.io|engine\.io|socket\.io-adapter)\//.test(m))).toEqual([]);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// A real bundle, built as scripts/build-bundles.mjs builds the programs (esbuild, ESM, linked maps without
// the sources' text), run in a real Node process that prints a stack.
const dir = mkdtempSync(join(tmpdir(), 'mcpd-lazy-maps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THROWER = `import { mapStackTracesLazily } from ${JSON.stringify(join(import.meta.dirname, 'lazy-source-maps.ts'))};
mapStackTracesLazily();
function fail(): never {
  throw new TypeError('boom');
}
try {
  fail();
} catch (e) {
  console.log((e as Error).stack);
}
`;

async function bundle(): Promise<string> {
  writeFileSync(join(dir, 'thrower.ts'), THROWER);
  const out = join(dir, 'out', 'main.js');
  await build({
    entryPoints: [join(dir, 'thrower.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  });
  return out;
}

describe('mapStackTracesLazily', () => {
  it("prints a bundle's frames at their TypeScript source lines, and leaves frames without a map as they are", async () => {
    const out = await bundle();
    const stack = execFileSync(process.execPath, [out], { encoding: 'utf8' });
    expect(stack).toMatch(/^TypeError: boom\n {4}at fail \(/);
    // `throw new TypeError` is line 4 of thrower.ts; in the bundle it sits elsewhere.
    expect(stack).toContain(`${join(dir, 'thrower.ts')}:4:`);
    expect(stack).not.toContain('main.js:');

    rmSync(`${out}.map`);
    const unmapped = execFileSync(process.execPath, [out], { encoding: 'utf8' });
    expect(unmapped).toMatch(/^TypeError: boom\n {4}at fail \(file:\/\/.*\/out\/main\.js:\d+:\d+\)/);
    expect(unmapped).not.toContain('thrower.ts');
  });
});

import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue } from '../../internal/shared/errors.js';
import { loadStore } from '../../internal/store/index.js';
import { FUZZ, mutations } from './fuzz-support.js';

/** A valid store that uses most of the grammar: every file the loader reads. */
const VALID: Record<string, string> = {
  'profiles/default.yaml': [
    'servers:',
    '  - name: everything',
    '    cmd: [node, server.js, stdio]',
    '    env:',
    '      TOKEN: ${FUZZ_TOKEN:-none}',
    '      HOME_DIR: "${HOME}"',
    '    strategy: stateless',
    '    maxInstances: 2',
    '    minReady: 0',
    '    maxConcurrent: 4',
    '    idleSeconds: 60',
    '    callTimeoutSeconds: 30',
    '    forbiddenTools: [write_file]',
    '  - name: remote',
    '    transport: streamable_http',
    '    url: http://127.0.0.1:8080/mcp',
    '    headers:',
    '      Authorization: Bearer ${FUZZ_TOKEN:-x}',
  ].join('\n'),
  'profiles/dev.yaml': ['servers:', '  - name: notes', '    cmd: [node, notes.js]', '    exposeTools: [read_graph, search_nodes]'].join(
    '\n',
  ),
  'callers.yaml': ['callers:', '  vscode: dev', '  claude-desktop: default'].join('\n'),
  'runtime.yaml': ['logLevel: info', 'poolWaitSeconds: 10', 'pageSize: 100', 'shutdownGraceSeconds: 10', 'metricsAddress: ""'].join('\n'),
};

const ENV = { HOME: '/home/fuzz' };
const root = mkdtempSync(join(tmpdir(), 'mcpd-fuzz-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function writeStore(files: Record<string, string>): string {
  const dir = join(root, String(n++));
  mkdirSync(join(dir, 'profiles'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text);
  return dir;
}

describe('profile-store loader fuzzing', () => {
  it('the unmutated store is valid (so the mutations below start from a valid store)', async () => {
    const r = await loadStore(writeStore(VALID), { env: ENV, scaffold: false });
    expect(r.ok ? [] : r.issues.map(formatIssue)).toEqual([]);
  });

  it('a random mutation of one file loads, or fails with file:line issues inside the store — never a crash', async () => {
    const mutated = fc
      .constantFrom(...Object.entries(VALID))
      .chain(([name, valid]) => mutations(fc.constant(valid)).map((text) => ({ name, text })));
    await fc.assert(
      fc.asyncProperty(mutated, async ({ name, text }) => {
        const dir = writeStore({ ...VALID, [name]: text });
        const r = await loadStore(dir, { env: ENV, scaffold: false });
        if (r.ok) return;
        expect(r.issues.length).toBeGreaterThan(0);
        const lines = text.split('\n').length;
        for (const i of r.issues) {
          expect(i.file.startsWith(dir)).toBe(true);
          expect(i.line).toBeGreaterThanOrEqual(1);
          // An issue in the mutated file points inside it (a YAML error may point one past the end).
          if (i.file === join(dir, name)) expect(i.line).toBeLessThanOrEqual(lines + 1);
          expect(i.message.length).toBeGreaterThan(0);
          // `s`: a mutated key may hold a line separator (U+2028), which the message quotes as it is.
          expect(formatIssue(i)).toMatch(/^\/.+:\d+(:\d+)?: .+/s);
        }
        rmSync(dir, { recursive: true, force: true });
      }),
      FUZZ,
    );
  }, 300_000);
});

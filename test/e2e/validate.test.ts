import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MCPD, MCPDCTL, REPO } from '../support/paths.js';

const run = promisify(execFile);

async function validate(bin: string, dir: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [bin, 'validate', '--config', dir]);
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

describe('mcpd validate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-validate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every problem at once, each with file, line and field', async () => {
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(
      join(dir, 'profiles/default.yaml'),
      [
        'servers:', //                       1
        '  - name: good', //                 2
        '    cmd: [node, x.js]', //          3
        '    maxInstnces: 2', //             4  unknown key
        '  - name: typed', //                5
        '    cmd: [node, y.js]', //          6
        '    maxConcurrent: many', //        7  wrong type
        '    strategy: sometimes', //        8  bad enum
      ].join('\n') + '\n',
    );
    writeFileSync(join(dir, 'profiles/broken.yaml'), 'servers:\n  - name: a\n    cmd: [x\n'); // invalid YAML
    writeFileSync(join(dir, 'callers.yaml'), 'callers:\n  vscode: default\n  cursor: nowhere\n'); // unknown profile
    const { code, out } = await validate(MCPD, dir);
    expect(code).toBe(1);
    expect(out).toMatch(/profiles\/default\.yaml:4(:\d+)?: servers\[0\]\.maxInstnces: .*unknown.*maxInstances/i);
    expect(out).toMatch(/profiles\/default\.yaml:7(:\d+)?: servers\[1\]\.maxConcurrent: /);
    expect(out).toMatch(/profiles\/default\.yaml:8(:\d+)?: servers\[1\]\.strategy: .*stateless/);
    expect(out).toMatch(/profiles\/broken\.yaml:\d+/);
    expect(out).toMatch(/callers\.yaml:3(:\d+)?: .*cursor.*nowhere/);
  });

  it('accepts the repository default store, also through mcpdctl', async () => {
    const a = await validate(MCPD, REPO);
    expect(a.out).toContain('configuration is valid');
    expect(a.code).toBe(0);
    const b = await validate(MCPDCTL, REPO);
    expect(b.code).toBe(0);
  });
});

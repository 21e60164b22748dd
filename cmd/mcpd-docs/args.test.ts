import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-args-'));
const file = path.join(dir, 'f.txt');
writeFileSync(file, 'x');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseArgs', () => {
  it('defaults the host to "docs"; accepts --host NAME and --host=NAME', () => {
    expect(parseArgs([dir])).toMatchObject({ host: 'docs', dirs: [dir] });
    expect(parseArgs(['--host', 'team-docs', dir, dir])).toMatchObject({ host: 'team-docs', dirs: [dir, dir] });
    expect(parseArgs([`--host=x.y`, dir]).host).toBe('x.y');
  });
  it('takes the size and time limits, and refuses bad ones', () => {
    expect(parseArgs(['--max-file-bytes', '10', '--max-unpacked-bytes=20', '--parse-timeout-ms', '30', dir]).limits).toMatchObject({
      maxFileBytes: 10,
      maxUnpackedBytes: 20,
      parseTimeoutMs: 30,
    });
    expect(() => parseArgs(['--max-file-bytes', 'lots', dir])).toThrow(/--max-file-bytes needs a whole number above 0, got "lots"/);
  });
  it('explains what is wrong', () => {
    expect(() => parseArgs([])).toThrow(/no folder given\nusage: mcpd-docs/);
    expect(() => parseArgs(['--host'])).toThrow(/--host needs a name/);
    expect(() => parseArgs(['--host', 'a b', dir])).toThrow(/--host needs a name .* got "a b"/);
    expect(() => parseArgs(['--verbose', dir])).toThrow(/unknown option --verbose/);
    expect(() => parseArgs([file])).toThrow(/f\.txt is not a readable directory/);
    expect(() => parseArgs([path.join(dir, 'missing')])).toThrow(/not a readable directory/);
    expect(() => parseArgs(['--help'])).toThrow(/^usage:/);
  });
});

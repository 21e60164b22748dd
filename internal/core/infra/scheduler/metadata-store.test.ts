import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { METADATA_FILE_MAX_BYTES, MetadataStore } from './metadata-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpd-metadata-store-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const FP = 'a'.repeat(16);
const meta = { tools: [{ name: 't', definition: { name: 't', inputSchema: { type: 'object' } } }] } as never;

function store(name: string): { s: MetadataStore; dir: string; warnings: string[] } {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const warnings: string[] = [];
  return { s: new MetadataStore(dir, (m, f) => warnings.push(`${m} ${JSON.stringify(f)}`)), dir, warnings };
}

describe('MetadataStore on a hostile or failing disk', () => {
  it('a FIFO in place of a cache file is refused at once (never opened for a writer), and so is a link', () => {
    const { s, dir, warnings } = store('fifo');
    execFileSync('mkfifo', [join(dir, `${FP}.json`)]);
    expect(s.load(FP)).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/not a regular file/);
    const { s: s2, dir: d2 } = store('link');
    writeFileSync(join(scratch, 'elsewhere.json'), '{}');
    symlinkSync(join(scratch, 'elsewhere.json'), join(d2, `${FP}.json`));
    expect(s2.load(FP)).toBeUndefined();
  });

  it('a cache file over the size cap is not read', () => {
    const { s, dir, warnings } = store('big');
    writeFileSync(join(dir, `${FP}.json`), Buffer.alloc(METADATA_FILE_MAX_BYTES + 1, 0x20));
    expect(s.load(FP)).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/over the \d+-byte cap/);
  });

  it('a write that fails leaves no *.tmp file behind', () => {
    const { s, dir, warnings } = store('failing');
    // The rename cannot replace a directory: the write fails after the temporary file was made.
    mkdirSync(join(dir, `${FP}.json`));
    s.save(FP, meta);
    expect(warnings.join('\n')).toMatch(/saving the metadata cache failed/);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a good file round-trips', () => {
    const { s } = store('good');
    s.save(FP, meta);
    expect(s.load(FP)?.tools.map((t) => t.name)).toEqual(['t']);
  });
});

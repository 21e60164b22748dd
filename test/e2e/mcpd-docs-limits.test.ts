import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { inflatingPdf, lyingWorkbook } from '../support/hostile-files.js';
import { peakRssMiB } from '../support/memory.js';
import { waitFor } from '../support/procs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/cmd/mcpd-docs/main.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-limits-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs mcpd-docs on `dir` with `flags` until `body` is done; returns its stderr. The process is checked gone. */
async function withDocs(
  dir: string,
  flags: string[],
  body: (c: Client, pid: number, stderr: () => string) => Promise<void>,
): Promise<string> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, ...flags, dir], stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'limits', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid ?? 0;
  try {
    await body(client, pid, () => err);
  } finally {
    await client.close();
    await new Promise<void>((resolve) => {
      const check = () => {
        try {
          process.kill(pid, 0);
          setTimeout(check, 50);
        } catch {
          resolve();
        }
      };
      check();
    });
  }
  return err;
}

const uris = async (c: Client) => (await c.listResources()).resources.map((r) => r.uri);

describe('mcpd-docs stays inside its folder and its budget', () => {
  it('does not follow a link out of the folder', async () => {
    const dir = path.join(scratch, 'linked');
    mkdirSync(dir);
    writeFileSync(path.join(scratch, 'secret-key.txt'), 'PRIVATE KEY');
    symlinkSync(path.join(scratch, 'secret-key.txt'), path.join(dir, 'key.txt'));
    writeFileSync(path.join(dir, 'ok.txt'), 'fine');
    const err = await withDocs(dir, [], async (c) => {
      expect(await uris(c)).toEqual(['dpe://docs/ok.txt']);
      await expect(c.readResource({ uri: 'dpe://docs/key.txt/pages/0' })).rejects.toThrow();
    });
    expect(err).toMatch(/not indexing .*key\.txt: it resolves to .*secret-key\.txt, outside the served folders/);
  });

  it('skips files over the size cap and workbooks that unpack over the cap, and keeps answering', async () => {
    const dir = path.join(scratch, 'big');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'huge.txt'), 'x'.repeat(200_000));
    writeFileSync(path.join(dir, 'small.txt'), 'small');
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('bomb').getCell('A1').value = 'y'.repeat(3_000_000); // compresses to a few KB
    await wb.xlsx.writeFile(path.join(dir, 'bomb.xlsx'));
    const err = await withDocs(dir, ['--max-file-bytes', '100000', '--max-unpacked-bytes', '1000000'], async (c) => {
      expect(await uris(c)).toEqual(['dpe://docs/small.txt']);
    });
    expect(err).toMatch(/huge\.txt: the file is 200000 bytes, over the 100000-byte limit/);
    expect(err).toMatch(/bomb\.xlsx: the workbook unpacks to \d+ bytes, over the 1000000-byte limit/);
  });

  it('stops a parse that runs past its deadline, and keeps answering', async () => {
    const dir = path.join(scratch, 'slow');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.md'), '# Notes\n\ntext\n');
    const err = await withDocs(dir, ['--parse-timeout-ms', '1'], async (c) => {
      expect(await uris(c)).toEqual([]);
    });
    expect(err).toMatch(/notes\.md: parsing took longer than 1 ms; stopped/);
  });

  it('answers initialize and lists the rest when a FIFO or a socket is named *.md, also one added later', async () => {
    const dir = path.join(scratch, 'special');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'ok.md'), '# OK\n');
    // A real FIFO nobody writes to: reading it (without O_NONBLOCK) waits for a writer forever.
    execFileSync('mkfifo', [path.join(dir, 'pipe.md')]);
    const sock = createServer();
    await new Promise<void>((resolve) => sock.listen(path.join(dir, 'sock.md'), resolve));
    try {
      const err = await withDocs(dir, [], async (c, _pid, stderr) => {
        expect(await uris(c)).toEqual(['dpe://docs/ok.md']);
        execFileSync('mkfifo', [path.join(dir, 'late.md')]);
        await waitFor('the FIFO added later to be refused', () => /late\.md: it is a FIFO/.test(stderr()), 20_000);
        expect(await uris(c)).toEqual(['dpe://docs/ok.md']);
      });
      expect(err).toMatch(/cannot index .*pipe\.md: it is a FIFO \(named pipe\), not a regular file: only regular files are read/);
      expect(err).toMatch(/cannot index .*sock\.md: it is a socket, not a regular file/);
    } finally {
      await new Promise<void>((resolve) => sock.close(() => resolve()));
    }
  });

  it('stops inflating a workbook whose zip directory lies, past --max-unpacked-bytes, and stays small', async () => {
    const dir = path.join(scratch, 'lying');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'ok.txt'), 'fine');
    // 256 MiB of sheet declared as 1,000 bytes: the declared total passes the 8 MiB limit, the real one does not.
    writeFileSync(path.join(dir, 'bomb.xlsx'), await lyingWorkbook(256 * 1024 * 1024));
    let peak = 0;
    const err = await withDocs(dir, ['--max-unpacked-bytes', String(8 * 1024 * 1024)], async (c, pid) => {
      expect(await uris(c)).toEqual(['dpe://docs/ok.txt']);
      peak = peakRssMiB(pid);
    });
    expect(err).toMatch(
      /cannot index .*bomb\.xlsx: the XLSX workbook unpacks to more than 8388608 bytes \(stopped inside "xl\/worksheets\/sheet1\.xml"\), over the 8388608-byte limit \(--max-unpacked-bytes\)/,
    );
    // Unbounded, the worker held the 256 MiB entry (and its copies) in Buffers its heap limit does not cover.
    expect(peak).toBeLessThan(200);
  });

  it('stops a PDF whose streams inflate far beyond its size, past --max-unpacked-bytes, stays small and serves the rest', async () => {
    const dir = path.join(scratch, 'pdf-bomb');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'ok.txt'), 'fine');
    // About 250 KB on disk, 256 MiB once its page content is inflated.
    const bomb = await inflatingPdf(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    writeFileSync(path.join(dir, 'bomb.pdf'), bomb);
    let peak = 0;
    const err = await withDocs(dir, ['--max-unpacked-bytes', String(8 * 1024 * 1024)], async (c, pid) => {
      expect(await uris(c)).toEqual(['dpe://docs/ok.txt']);
      const read = await c.readResource({ uri: 'dpe://docs/ok.txt' });
      expect(JSON.stringify(read.contents)).toContain('fine');
      peak = peakRssMiB(pid);
    });
    expect(err).toMatch(
      /cannot index .*bomb\.pdf: the PDF inflates to more than 8388608 bytes \(stopped at the stream at byte \d+; counting the bytes its streams actually inflate to\), over the 8388608-byte limit \(--max-unpacked-bytes\)/,
    );
    // Unbounded, pdf.js grew one Uint8Array to the whole 256 MiB (and its doubling copy) outside the worker's heap limit.
    expect(peak).toBeLessThan(200);
  });

  it('parses with a bounded pool of workers: 40 workbooks at once stay within pool size × --parse-memory-mb', async () => {
    const dir = path.join(scratch, 'many');
    mkdirSync(dir);
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('data');
    for (let r = 1; r <= 200; r++) sheet.addRow([r, `row ${r}`, r * 2]);
    const one = path.join(scratch, 'one.xlsx');
    await wb.xlsx.writeFile(one);
    const names = Array.from({ length: 40 }, (_, i) => `book-${String(i).padStart(2, '0')}.xlsx`);
    for (const n of names) copyFileSync(one, path.join(dir, n));
    const POOL = 2;
    const HEAP_MB = 64;
    let peak = 0;
    await withDocs(dir, ['--parse-workers', String(POOL), '--parse-memory-mb', String(HEAP_MB)], async (c, pid) => {
      // The first listing waits for the first scan: 40 parses, two at a time, on a loaded machine.
      const listed = await c.listResources(undefined, { timeout: 200_000 });
      expect(listed.resources.map((r) => r.uri).sort()).toEqual(names.map((n) => `dpe://docs/${n}`));
      peak = peakRssMiB(pid);
    });
    // The server itself (about 100 MiB) plus at most POOL workers of HEAP_MB heap each. One worker per file at
    // once (the probe: 4.7 GiB for 151 small workbooks) is far past it.
    expect(peak).toBeLessThan(150 + POOL * HEAP_MB);
  }, 300_000);

  it('reads a file only once it has a parse slot: 30 files of 20 MiB at once stay within the pool', async () => {
    const dir = path.join(scratch, 'big-files');
    mkdirSync(dir);
    const FILES = 30;
    const FILE_MIB = 20;
    // Sparse (600 MiB that take no disk), and no zip: each is read whole, then refused before a worker starts.
    for (let i = 0; i < FILES; i++) {
      const f = path.join(dir, `big-${String(i).padStart(2, '0')}.xlsx`);
      writeFileSync(f, 'x');
      truncateSync(f, FILE_MIB * 1024 * 1024);
    }
    writeFileSync(path.join(dir, 'ok.txt'), 'fine');
    const POOL = 2;
    const HEAP_MB = 64;
    let peak = 0;
    const err = await withDocs(dir, ['--parse-workers', String(POOL), '--parse-memory-mb', String(HEAP_MB)], async (c, pid) => {
      const listed = await c.listResources(undefined, { timeout: 200_000 });
      expect(listed.resources.map((r) => r.uri)).toEqual(['dpe://docs/ok.txt']);
      peak = peakRssMiB(pid);
    });
    expect(err.match(/cannot index .*big-\d+\.xlsx: not a zip archive/g)).toHaveLength(FILES);
    // The server (about 100 MiB) plus, per slot, a worker's heap and the file's bytes twice (read, then
    // copied to the worker): 146 MiB measured. Reading every file before waiting for a slot held
    // FILES × FILE_MIB = 600 MiB at once (670 MiB measured).
    expect(peak).toBeLessThan(150 + POOL * (HEAP_MB + 2 * FILE_MIB));
  }, 300_000);
});

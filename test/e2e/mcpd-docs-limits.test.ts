import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/cmd/mcpd-docs/main.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-limits-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs mcpd-docs on `dir` with `flags` until `body` is done; returns its stderr. The process is checked gone. */
async function withDocs(dir: string, flags: string[], body: (c: Client) => Promise<void>): Promise<string> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, ...flags, dir], stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'limits', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid ?? 0;
  try {
    await body(client);
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
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT_FIXTURES, writeSamplePdf, writeSampleXlsx } from '../fixtures/docs/generate.js';
import { must } from '../../internal/shared/must.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/cmd/mcpd-docs/main.js');
let dir = '';
let client: Client;
let transport: StdioClientTransport;
let pid = 0;
const transportErrors: Error[] = [];
const updated: string[] = [];
let listChanges = 0;

/** Polls `cond` until true or the deadline; fails with `what` otherwise. */
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function isGone(p: number): boolean {
  try {
    process.kill(p, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const readJson = async (uri: string): Promise<Record<string, unknown>> => {
  const r = await client.readResource({ uri });
  const c = r.contents[0] as { text: string; mimeType: string };
  expect(c.mimeType).toBe('application/json');
  return JSON.parse(c.text) as Record<string, unknown>;
};

async function readError(uri: string): Promise<McpError> {
  try {
    await client.readResource({ uri });
  } catch (e) {
    expect(e).toBeInstanceOf(McpError);
    return e as McpError;
  }
  throw new Error(`reading ${uri} did not fail`);
}

beforeAll(async () => {
  // The suite's global set-up builds dist/ before any test file runs.
  expect(existsSync(MAIN), `${MAIN} is missing: run \`make build\``).toBe(true);
  dir = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-e2e-'));
  for (const f of ['guide.md', 'notes.txt', 'people.csv', 'config.json']) copyFileSync(path.join(TEXT_FIXTURES, f), path.join(dir, f));
  await writeSamplePdf(path.join(dir, 'report.pdf'));
  await writeSampleXlsx(path.join(dir, 'inventory.xlsx'));
  writeFileSync(path.join(dir, 'ignored.docx'), 'not a supported format');
  transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, '--host', 'docs', dir], stderr: 'pipe' });
  client = new Client({ name: 'e2e', version: '1.0.0' });
  client.onerror = (e) => transportErrors.push(e);
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanges++);
  await client.connect(transport);
  pid = transport.pid ?? 0;
  expect(pid).toBeGreaterThan(0);
}, 240_000);

afterAll(async () => {
  await client?.close();
  if (pid) {
    await until(`mcpd-docs (pid ${pid}) to exit`, () => isGone(pid), 10_000).catch(() => process.kill(pid, 'SIGKILL'));
    expect(isGone(pid)).toBe(true);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mcpd-docs over stdio', () => {
  it('declares subscribable, list-changing resources and lists every supported document', async () => {
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      ['config.json', 'guide.md', 'inventory.xlsx', 'notes.txt', 'people.csv', 'report.pdf'].map((f) => `dpe://docs/${f}`),
    );
    expect(resources.find((r) => r.uri === 'dpe://docs/report.pdf')).toMatchObject({
      title: 'Quarterly Report',
      mimeType: 'application/json',
    });
  });

  it('Level 0 and Level 1', async () => {
    const l0 = await readJson('dpe://docs?limit=2&offset=1');
    expect(l0.total_count).toBe(6);
    expect((l0.documents as { doc_ref: string }[]).map((d) => d.doc_ref)).toEqual(['guide.md', 'inventory.xlsx']);
    const l1 = await readJson('dpe://docs/inventory.xlsx');
    expect(l1).toMatchObject({
      doc_ref: 'inventory.xlsx',
      uri: 'dpe://docs/inventory.xlsx',
      file_type: 'xlsx',
      title: 'Inventory',
      page_count: 2,
      keywords: ['stock', 'warehouse'],
    });
    expect(l1.file_uri).toBe(`file://${path.join(dir, 'inventory.xlsx')}`);
    expect(Date.parse(String(l1.last_modified))).toBe(Math.floor(statSync(path.join(dir, 'inventory.xlsx')).mtimeMs));
    expect(l1.pages).toBeUndefined();
  });

  it('pages through depth=pages', async () => {
    const titles: string[] = [];
    for (let offset = 0; ; offset += 3) {
      const l1 = await readJson(`dpe://docs/guide.md?depth=pages&offset=${offset}&limit=3`);
      expect(l1).toMatchObject({ page_offset: offset, page_limit: 3, page_total: 4 });
      const pages = l1.pages as { page_index: number; title: string; uri: string }[];
      pages.forEach((p, i) => expect(p).toMatchObject({ page_index: offset + i, uri: `dpe://docs/guide.md/pages/${offset + i}` }));
      titles.push(...pages.map((p) => p.title));
      if (offset + 3 >= (l1.page_total as number)) break;
    }
    expect(titles).toEqual(['Developer Guide', 'Developer Guide', 'Install', 'Reference']);
  });

  it('Level 2 (json, categories, markdown) and Level 3 (json of an element)', async () => {
    const page = await readJson('dpe://docs/guide.md/pages/3');
    const elements = page.elements as { element_id: string; category: string }[];
    expect(elements.map((e) => e.category)).toEqual(['heading', 'table', 'image', 'link', 'separator', 'heading', 'text']);
    const tablesOnly = await readJson('dpe://docs/guide.md/pages/3?categories=table');
    expect(tablesOnly.element_count).toBe(1);
    const md = await client.readResource({ uri: 'dpe://docs/guide.md/pages/2?format=markdown' });
    expect(md.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: '## Install\n\n1. Clone the repository\n2. Run npm ci\n\n- fast\n- local-first\n\n```ts\nconst answer: number = 42;\n```',
    });
    const table = must(elements[1], 'the table element');
    const detail = await readJson(`dpe://docs/guide.md/elements/${table.element_id}`);
    expect(detail).toEqual({
      element_id: table.element_id,
      category: 'table',
      summary: expect.any(String) as string,
      content: {
        headers: ['Name', 'Value'],
        rows: [
          ['port', '9464'],
          ['mode', 'a | b'],
        ],
      },
      doc_ref: 'guide.md',
      page_index: 3,
      uri: `dpe://docs/guide.md/elements/${table.element_id}`,
    });
    const pdfPage = await readJson('dpe://docs/report.pdf/pages/0');
    expect((pdfPage.elements as { content: { text: string } }[])[0]?.content.text).toBe('Revenue grew by ten percent. Costs stayed flat.');
  });

  it('errors carry the finder codes and details', async () => {
    const bad = await readError('dpe://docs/guide.md/pages/01');
    expect(bad.code).toBe(4204);
    expect(bad.data).toMatchObject({ uri: 'dpe://docs/guide.md/pages/01', rule: 3 });
    expect((await readError('file:///etc/passwd')).code).toBe(4204);
    const page = await readError('dpe://docs/guide.md/pages/9');
    expect(page.code).toBe(4202);
    expect(page.data).toEqual({ doc_ref: 'guide.md', page_index: 9, page_count: 4 });
    expect((await readError('dpe://docs/missing.md')).data).toEqual({ doc_ref: 'missing.md', host: 'docs' });
    expect((await readError('dpe://docs/guide.md/elements/nope')).code).toBe(4203);
    await expect(client.subscribeResource({ uri: 'dpe://elsewhere/x' })).rejects.toMatchObject({ code: 4201 });
    await expect(client.subscribeResource({ uri: 'dpe://docs/x?limit=0' })).rejects.toMatchObject({ code: 4204 });
  });

  it('a file edit notifies subscribers with resources/updated and the new content is served', async () => {
    await client.subscribeResource({ uri: 'dpe://docs/notes.txt' });
    writeFileSync(path.join(dir, 'notes.txt'), 'Edited notes\n\nnew body');
    await until('resources/updated for notes.txt', () => updated.includes('dpe://docs/notes.txt'));
    expect((await readJson('dpe://docs/notes.txt')).title).toBe('Edited notes');
    expect(updated).not.toContain('dpe://docs/guide.md');
  });

  it('a new file → list_changed and the document is listed', async () => {
    const before = listChanges;
    writeFileSync(path.join(dir, 'added.md'), '# Added later\n\ntext');
    await until('list_changed', () => listChanges > before);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('dpe://docs/added.md');
    expect((await readJson('dpe://docs/added.md')).title).toBe('Added later');
  });

  it('stdout carried only MCP messages', () => {
    expect(transportErrors).toEqual([]);
  });
});

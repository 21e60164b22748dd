import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { must } from '../../internal/shared/must.js';

const DOCS_SERVER = join(DIST, 'cmd/mcpd-docs/main.js');

function docsServer(name: string, host: string, dir: string): string {
  return (
    [
      `  - name: ${name}`,
      `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(DOCS_SERVER)}, --host, ${host}, ${JSON.stringify(dir)}]`,
      `    strategy: singleton`,
      `    idleSeconds: 300`,
      `    env:`,
      `      MCPD_TEST_TAG: \${MCPD_TEST_TAG}`,
    ].join('\n') + '\n'
  );
}

function md(title: string, keywords: string[], body: string): string {
  return `---\ntitle: ${title}\nkeywords: [${keywords.join(', ')}]\nsummary: ${title} summary\n---\n# ${title}\n\n${body}\n\n## Details\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`;
}

interface Doc {
  doc_ref: string;
  uri: string;
  file_type: string;
  title: string;
  server: string;
}
interface Page {
  documents: Doc[];
  total_count: number;
}

describe('finder through the core and the gateway', () => {
  let world: TestWorld;
  let ctx: { client: Client };
  let teamDir: string;
  const updates: string[] = [];

  const query = async (q: string): Promise<Page> => {
    const r = await ctx.client.readResource({ uri: `mcpd://finder${q}` });
    const c = r.contents[0] as { text: string; mimeType: string };
    expect(c.mimeType).toBe('application/json');
    return JSON.parse(c.text) as Page;
  };

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers: {}\n' });
    teamDir = join(world.dir, 'team');
    const notesDir = join(world.dir, 'notes');
    mkdirSync(teamDir);
    mkdirSync(notesDir);
    writeFileSync(join(teamDir, 'budget-2026.md'), md('Budget 2026', ['budget', 'finance'], 'Numbers for next year.'));
    writeFileSync(join(teamDir, 'roadmap.md'), md('Roadmap', ['plan'], 'What we build.'));
    writeFileSync(join(teamDir, 'people.csv'), 'name,role\nAda,engineer\nLin,designer\n');
    writeFileSync(join(notesDir, 'meeting.md'), md('Meeting notes', ['budget'], 'We talked about the budget.'));
    writeFileSync(join(notesDir, 'ideas.md'), md('Ideas', ['misc'], 'Some ideas.'));
    world.write('profiles/default.yaml', 'servers:\n' + docsServer('team', 'team', teamDir) + docsServer('notes', 'notes', notesDir));
    await world.startCore();
    ctx = { client: await world.gateway('reader') }; // the real mcpdmcp
    ctx.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it('finds every document, servers by name (no history yet)', async () => {
    const all = await query('');
    expect(all.total_count).toBe(5);
    expect(all.documents.map((d) => d.server)).toEqual(['notes', 'notes', 'team', 'team', 'team']);
    expect(all.documents.find((d) => d.doc_ref === 'budget-2026.md')).toMatchObject({
      uri: 'dpe://team/budget-2026.md',
      file_type: 'md',
      title: 'Budget 2026',
    });
  });

  it('filters by keyword and by type', async () => {
    const budget = await query('?keywords=BUDGET');
    expect(budget.documents.map((d) => d.title).sort()).toEqual(['Budget 2026', 'Meeting notes']);
    const either = await query('?keywords=plan,finance');
    expect(either.documents.map((d) => d.title).sort()).toEqual(['Budget 2026', 'Roadmap']);
    const csv = await query('?file_type=csv');
    expect(csv.documents.map((d) => d.doc_ref)).toEqual(['people.csv']);
    expect((await query('?keywords=budget&file_type=csv')).total_count).toBe(0);
  });

  it('pages with offset and limit; total_count counts before paging', async () => {
    const all = (await query('')).documents.map((d) => d.uri);
    const pages: string[] = [];
    for (let offset = 0; offset < 5; offset += 2) {
      const p = await query(`?offset=${offset}&limit=2`);
      expect(p.total_count).toBe(5);
      pages.push(...p.documents.map((d) => d.uri));
    }
    expect(pages).toEqual(all);
    expect((await query('?offset=9')).documents).toEqual([]);
    expect((await query('?limit=0')).documents).toEqual([]);
    await expect(query('?limit=-1')).rejects.toThrow(/limit must be a non-negative integer/);
  });

  it('answers the mcpd_finder tool', async () => {
    const r = await ctx.client.callTool({ name: 'mcpd_finder', arguments: { keywords: ['ideas'], file_type: 'md' } });
    expect((r.structuredContent as unknown as Page).documents.map((d) => d.uri)).toEqual(['dpe://notes/ideas.md']);
    const bad = await ctx.client.callTool({ name: 'mcpd_finder', arguments: { offset: 'x' } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]?.text).toMatch(/"offset" must be an integer/);
  });

  it('mcpdctl finder lists a page of documents', () => {
    const out = execFileSync(
      process.execPath,
      [MCPDCTL, '--socket', world.socket, 'finder', 'reader', '--keywords', 'budget', '--type', 'md', '--limit', '1'],
      { env: world.env(), encoding: 'utf8' },
    );
    expect(out).toMatch(/TITLE\s+TYPE\s+SERVER/);
    expect(out).toMatch(/1–1 of 2 documents/);
  });

  it('GetFinder over gRPC', async () => {
    const client = createControlClient(world.socket);
    try {
      const r = await callUnary<pb.GetFinderRequest, pb.GetFinderResponse>((q, cb) => client.getFinder(q, cb), {
        caller: 'reader',
        keywords: ['budget'],
        fileType: 'md',
        offset: 1,
        limit: 5,
      });
      expect(r.totalCount).toBe(2);
      expect(r.documentsJson).toHaveLength(1);
      expect((JSON.parse(must(r.documentsJson[0], 'a document').toString('utf8')) as Doc).file_type).toBe('md');
    } finally {
      client.close();
    }
  });

  it('a client reads a found document as Markdown and an element as JSON through resources/read (mcpdmcp)', async () => {
    const agent = await world.gateway('reader');
    const doc = must((await query('?keywords=finance')).documents[0], 'a finance document');
    const page = await agent.readResource({ uri: `${doc.uri}/pages/0?format=markdown` });
    const md0 = page.contents[0] as { text: string; mimeType: string };
    expect(md0.mimeType).toBe('text/markdown');
    expect(md0.text).toContain('# Budget 2026');
    const json = await agent.readResource({ uri: `${doc.uri}/pages/1` });
    const elements = (JSON.parse((json.contents[0] as { text: string }).text) as { elements: { element_id: string; category: string }[] })
      .elements;
    const table = elements.find((e) => e.category === 'table')!;
    const el = await agent.readResource({ uri: `${doc.uri}/elements/${encodeURIComponent(table.element_id)}` });
    expect(JSON.parse((el.contents[0] as { text: string }).text)).toMatchObject({
      element_id: table.element_id,
      category: 'table',
      content: { headers: ['a', 'b'], rows: [['1', '2']] },
    });
  });

  it('an unknown dpe:// host (host case included: matching is exact) is the Finder’s 4201 document-not-found', async () => {
    const agent = await world.gateway('reader');
    const doc = must((await query('?keywords=finance')).documents[0], 'a finance document');
    const host = must(/^dpe:\/\/([^/]+)/.exec(doc.uri)?.[1], 'the dpe host');
    for (const uri of ['dpe://no-such-host/x', doc.uri.replace(host, host.toUpperCase())]) {
      const e = (await agent.readResource({ uri }).catch((x: unknown) => x)) as { code: number; message: string };
      expect(e.code).toBe(4201);
      expect(e.message).toMatch(/no server in profile "default" serves dpe:\/\//);
    }
  });

  it('a subscribed client hears about added and edited documents', async () => {
    await query('');
    await ctx.client.subscribeResource({ uri: 'mcpd://finder' });
    let before = updates.length;
    writeFileSync(join(teamDir, 'new-budget.md'), md('New budget', ['budget'], 'Fresh numbers.'));
    await waitFor('the finder update after a new file', () => updates.length > before);
    expect(updates.at(-1)).toBe('mcpd://finder');
    await waitFor('the new document in the finder', async () => (await query('?keywords=fresh,new')).total_count === 1);
    before = updates.length;
    writeFileSync(join(teamDir, 'roadmap.md'), md('Roadmap, revised', ['plan'], 'What we build next.'));
    await waitFor('the finder update after an edit', () => updates.length > before);
    await waitFor('the edited title', async () => (await query('?keywords=plan')).documents[0]?.title === 'Roadmap, revised');
  });
});

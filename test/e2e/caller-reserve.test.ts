import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { ctl, removeHomes, tempHome } from '../support/client-home.js';

// 50 characters: `<server>__echo` is 56, within the default maxLength 64, but not within 64 − 11 (Claude Code)
// nor 63 − 9 (Gemini CLI) once the client puts its own prefix in front.
const SERVER = 'company-knowledge-base-and-document-search-service';

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
const echoName = (all: string[]) => all.find((n) => n.endsWith('__echo')) ?? '';
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content);

describe('two callers of one profile, connected from clients with different prefixes, each get names that fit their own budget', () => {
  let world: TestWorld;
  let claude: Client;
  let gemini: Client;
  let cursor: Client;
  let geminiChanges = 0;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': 'servers: []\n',
      'profiles/work.yaml': profile(echoServer(SERVER, { idleSeconds: 300 })),
      'callers.yaml': 'callers:\n  claude-code: work\n  gemini-cli: work\n  cursor: work\n',
    });
    // The real mcpdctl writes each caller's reserve (a temporary HOME for the client files).
    const { home } = tempHome();
    for (const client of ['claude-code', 'gemini-cli', 'cursor'])
      expect((await ctl(home, ['connect', client, '--config', world.configDir])).code).toBe(0);
    await world.startCore();
    claude = await world.gateway('claude-code');
    gemini = await world.gateway('gemini-cli');
    cursor = await world.gateway('cursor');
    gemini.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      geminiChanges++;
    });
  });
  afterAll(async () => {
    await world.cleanup();
    removeHomes();
  });

  it('lists names within each client’s limit, shortening the server prefix and keeping the tool name whole', async () => {
    const [c, g, plain] = [await names(claude), await names(gemini), await names(cursor)];
    for (const n of c) expect(`mcp__mcpd__${n}`.length, n).toBeLessThanOrEqual(64);
    for (const n of g) expect(`mcp_mcpd_${n}`.length, n).toBeLessThanOrEqual(63);
    // Cursor has no prefix rule: its caller keeps the whole server prefix.
    expect(plain).toContain(`${SERVER}__echo`);
    expect(echoName(c)).toMatch(/^company-knowledge-base-and-document.*-[0-9a-f]{8}__echo$/);
    expect(echoName(g)).toMatch(/^company-knowledge-base-and-document.*-[0-9a-f]{8}__echo$/);
    // Different budgets (53 and 54 characters), different names: each is its caller's own. The server's
    // one prefix is fitted to its longest tool (`stderr`, 6), so `…__echo` is 2 characters shorter
    // (3 for Claude Code, whose cut falls after a dash, which is dropped).
    expect(echoName(c).length).toBe(50);
    expect(echoName(g).length).toBe(52);
    for (const all of [c, g]) expect(new Set(all.map((n) => n.slice(0, n.indexOf('__')))).size).toBe(1);
    expect(c.length).toBe(plain.length);
  });

  it('routes each caller’s own shortened names to the server, and only its own', async () => {
    const c = echoName(await names(claude));
    const g = echoName(await names(gemini));
    expect(text(await claude.callTool({ name: c, arguments: { from: 'claude' } }))).toContain('claude');
    expect(text(await gemini.callTool({ name: g, arguments: { from: 'gemini' } }))).toContain('gemini');
    expect(text(await cursor.callTool({ name: `${SERVER}__echo`, arguments: { from: 'cursor' } }))).toContain('cursor');
    const wrong = await gemini.callTool({ name: c, arguments: {} }).then(
      (r) => text(r),
      (e: Error) => e.message,
    );
    expect(wrong).toMatch(/no tool named .* in profile "work"/);
  });

  it('a reserve changed in callers.yaml re-lists that caller (list_changed) and leaves the others’ names alone', async () => {
    const claudeBefore = await names(claude);
    const cursorBefore = await names(cursor);
    const seen = geminiChanges;
    world.write(
      'callers.yaml',
      'callers:\n  claude-code: { profile: work, reserve: 11 }\n  gemini-cli: { profile: work, reserve: 24 }\n  cursor: work\n',
    );
    await waitFor('notifications/tools/list_changed to gemini-cli', () => geminiChanges > seen, 20_000);
    const g = await names(gemini);
    expect(echoName(g).length).toBe(37);
    expect(text(await gemini.callTool({ name: echoName(g), arguments: { again: 'yes' } }))).toContain('yes');
    expect(await names(claude)).toEqual(claudeBefore);
    expect(await names(cursor)).toEqual(cursorBefore);
  });
});

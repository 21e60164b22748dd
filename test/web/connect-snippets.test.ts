import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientSnippets, shellWord } from '../../web/pages/connect-snippets.js';

const info = {
  node: '/usr/bin/node',
  gateway: "/opt/my apps/mcpd's/mcpdmcp.js",
  configDir: '/home/u/.config/mcpd',
  socket: '/run/user/1/mcpd/control.sock',
};

/** The rows of docs/clients.md's "What each client gets" table: client, the prefix its model puts before tool names, limit, reserve. */
function documentedClients(): { client: string; prefix: string | null; limit: number; reserve: number }[] {
  const doc = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
  const table = doc.split('## What each client gets')[1]?.split('\n\n')[1] ?? '';
  return table
    .split('\n')
    .slice(2) // header and rule
    .map((row) => row.split('|').map((c) => c.trim()))
    .map(([, client, , , names, budget]) => {
      const numbers = (budget ?? '').match(/\d+/g)?.map(Number) ?? [];
      return {
        client: client ?? '',
        prefix: /^`(.*)<tool>`$/.exec(names ?? '')?.[1] ?? null,
        limit: numbers[0] ?? NaN,
        reserve: numbers.at(-1) ?? NaN,
      };
    });
}

describe('Connect snippets', () => {
  it('offers every client of docs/clients.md, each with the budget the doc gives it', () => {
    const documented = documentedClients();
    expect(documented.map((d) => d.client)).toEqual(['Claude Desktop', 'Cursor', 'VS Code', 'Claude Code', 'Gemini CLI', 'Codex']);
    const offered = clientSnippets(info, 'alice');
    for (const d of documented) {
      const s = offered.find((x) => x.title.startsWith(`${d.client} (`));
      expect(s, `no snippet for ${d.client}`).toBeDefined();
      if (d.prefix === null) expect(s?.names, d.client).toMatch(/nothing reserved/);
      else expect(s?.names, d.client).toContain(`${d.prefix}<tool>, at most ${d.limit} characters: the caller needs reserve: ${d.reserve}`);
    }
  });

  it("Codex's snippet keeps within its name budget: the entry it writes makes the mcp__mcpd__ prefix the reserve leaves room for", () => {
    const codex = clientSnippets(info, 'alice').find((x) => x.title.startsWith('Codex'));
    const row = documentedClients().find((d) => d.client === 'Codex');
    expect(row).toMatchObject({ prefix: 'mcp__mcpd__', limit: 64, reserve: 11 });
    // Codex qualifies a tool as mcp__<entry>__<tool>: the entry the snippet writes is what the prefix is made of.
    const entry = /^\[mcp_servers\.([^\]]+)\]$/m.exec(codex?.text ?? '')?.[1];
    expect(`mcp__${entry}__`).toBe(row?.prefix);
    expect(row!.prefix!.length).toBeLessThanOrEqual(row!.reserve);
    // The longest name the caller is given (limit − reserve) still fits once Codex puts its prefix before it.
    expect(row!.prefix!.length + (row!.limit - row!.reserve)).toBeLessThanOrEqual(64);
    expect(codex?.names).toMatch(/mcp__mcpd__<tool>, at most 64 characters: the caller needs reserve: 11 in callers\.yaml/);
  });

  it('lists the clients in order, the HTTP gateway last, and writes Codex its TOML table', () => {
    const s = clientSnippets(info, 'alice');
    expect(s.map((x) => x.title.split(' (')[0])).toEqual([
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'Claude Code',
      'Gemini CLI',
      'Codex',
      'Streamable HTTP',
    ]);
    const codex = s.find((x) => x.title.startsWith('Codex'))?.text ?? '';
    expect(codex).toContain('[mcp_servers.mcpd]\ncommand = "/usr/bin/node"');
    expect(codex).toContain(`args = [ "/opt/my apps/mcpd's/mcpdmcp.js", "alice",`);
  });

  it('quotes paths in shell lines', () => {
    const http = clientSnippets(info, 'alice').at(-1)?.text ?? '';
    expect(http.split('\n')[0]).toBe(
      `/usr/bin/node '/opt/my apps/mcpd'\\''s/mcpdmcp.js' alice --config /home/u/.config/mcpd --socket /run/user/1/mcpd/control.sock --http 127.0.0.1:8931`,
    );
    expect(shellWord('$HOME/x')).toBe(`'$HOME/x'`);
    expect(shellWord('/plain/path-1.2')).toBe('/plain/path-1.2');
  });
});

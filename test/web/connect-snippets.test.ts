import { describe, expect, it } from 'vitest';
import { clientSnippets, shellWord } from '../../web/pages/connect-snippets.js';

const info = {
  node: '/usr/bin/node',
  gateway: "/opt/my apps/mcpd's/mcpdmcp.js",
  configDir: '/home/u/.config/mcpd',
  socket: '/run/user/1/mcpd/control.sock',
};

describe('Connect snippets', () => {
  it('offers every client docs/clients.md covers, with its tool-name budget', () => {
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
    expect(s.find((x) => x.title.startsWith('Claude Code'))?.names).toMatch(/mcp__mcpd__<tool>, at most 64 .*reserve: 11/);
    expect(s.find((x) => x.title.startsWith('Gemini CLI'))?.names).toMatch(/mcp_mcpd_<tool>, at most 63 .*reserve: 10/);
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

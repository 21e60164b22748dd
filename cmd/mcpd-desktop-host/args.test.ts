import { describe, expect, it } from 'vitest';
import { HelpRequested, parseArgs } from './args.js';

describe('mcpd-desktop-host flags', () => {
  it('socket mode and MCP mode', () => {
    expect(parseArgs(['--socket', '/run/x.sock', '--workspace-root', '/w'])).toEqual({
      socket: '/run/x.sock',
      mcp: false,
      workspaceRoot: '/w',
      pollMs: 1000,
    });
    expect(parseArgs(['--mcp', '--workspace-root', '/w', '--poll-ms', '250'])).toEqual({
      socket: undefined,
      mcp: true,
      workspaceRoot: '/w',
      pollMs: 250,
    });
  });

  it('says what is wrong', () => {
    expect(() => parseArgs(['--socket', '/x'])).toThrow(/^--workspace-root DIR is required/);
    expect(() => parseArgs(['--workspace-root', '/w'])).toThrow(/^give --socket PATH or --mcp/);
    expect(() => parseArgs(['--workspace-root', '/w', '--mcp', '--socket', '/x'])).toThrow(/two modes/);
    expect(() => parseArgs(['--workspace-root', '/w', '--mcp', '--poll-ms', '10'])).toThrow(
      /--poll-ms must be an integer 50–60000 \(got 10\)/,
    );
    expect(() => parseArgs(['--colour'])).toThrow(/--colour/);
    expect(() => parseArgs(['--help'])).toThrow(HelpRequested);
  });
});

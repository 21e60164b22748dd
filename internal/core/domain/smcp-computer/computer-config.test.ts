import { describe, expect, it } from 'vitest';
import { spec as serverSpec } from '../../../../test/support/server-specs.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { computerConfig } from './computer-config.js';

const spec = (over: Partial<ServerSpec>): ServerSpec => serverSpec(over.name ?? 's', { cmd: [], ...over });

describe('GetComputerConfigRet from a profile', () => {
  it('maps each transport to its MCPServerConfig variant', () => {
    const c = computerConfig(
      [
        spec({ name: 'a', cmd: ['node', 'x.js'], env: { K: '***' }, cwd: '/w', toolMeta: { t: { alias: 'u', autoApply: true } } }),
        spec({
          name: 'b',
          transport: 'streamable_http',
          url: 'http://h/mcp',
          headers: { A: '***' },
          callTimeoutSeconds: 30,
          defaultToolMeta: { tags: ['x'] },
        }),
        spec({ name: 'c', transport: 'sse', url: 'http://h/sse', disabled: true, forbiddenTools: ['rm'] }),
      ],
      [],
      '***',
    );
    expect(c.servers.a).toEqual({
      name: 'a',
      type: 'stdio',
      disabled: false,
      forbidden_tools: [],
      tool_meta: { t: { alias: 'u', auto_apply: true } },
      server_parameters: {
        command: 'node',
        args: ['x.js'],
        env: { K: '***' },
        cwd: '/w',
        encoding: 'utf-8',
        encoding_error_handler: 'strict',
      },
    });
    expect(c.servers.b).toMatchObject({
      type: 'streamable',
      default_tool_meta: { tags: ['x'] },
      server_parameters: {
        url: 'http://h/mcp',
        headers: { A: '***' },
        timeout: 'PT30S',
        sse_read_timeout: 'PT300S',
        terminate_on_close: true,
      },
    });
    expect(c.servers.c).toMatchObject({
      type: 'sse',
      disabled: true,
      forbidden_tools: ['rm'],
      server_parameters: { url: 'http://h/sse', timeout: 120, sse_read_timeout: 300 },
    });
  });

  it('masks the default of a password input only', () => {
    const c = computerConfig(
      [],
      [
        { id: 'p', type: 'promptString', password: true, default: 'secret' },
        { id: 'q', type: 'promptString', default: 'plain' },
        { id: 'r', type: 'command', command: 'echo hi' },
      ],
      '***',
    );
    expect(c.inputs).toEqual([
      { id: 'p', type: 'promptString', description: '', password: true, default: '***' },
      { id: 'q', type: 'promptString', description: '', default: 'plain' },
      { id: 'r', type: 'command', description: '', command: 'echo hi' },
    ]);
  });
});

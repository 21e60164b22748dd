import { describe, expect, it } from 'vitest';
import { pythonJsonDumps } from './python-json.js';
import { mergedToolMeta, toSmcpTool } from './smcp-tool.js';

describe('pythonJsonDumps', () => {
  it('writes what Python json.dumps writes by default', () => {
    expect(pythonJsonDumps({ a: [1, 2.5, true, null], b: { c: 'x' } })).toBe('{"a": [1, 2.5, true, null], "b": {"c": "x"}}');
    // ensure_ascii: non-ASCII escaped, surrogate pairs kept as two escapes.
    expect(pythonJsonDumps('héllo 😀')).toBe('"h\\u00e9llo \\ud83d\\ude00"');
    expect(pythonJsonDumps('tab\t"q"')).toBe('"tab\\t\\"q\\""');
  });
});

describe('SMCPTool from an MCP tool (smcp-data-structures.md)', () => {
  const tool = {
    name: 'srv__navigate',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    annotations: { destructiveHint: true, custom: 1 },
    _meta: { version: '2', ids: [1, 2], mixed: [1, 'a'], nested: { k: 'v' }, nothing: null },
  };

  it('keeps attribute values, JSON-encodes the rest, adds a2c_tool_meta and MCP_TOOL_ANNOTATION', () => {
    const t = toSmcpTool(tool, mergedToolMeta({ tags: ['browser'], autoApply: true }, undefined));
    expect(t).toEqual({
      name: 'srv__navigate',
      description: 'None',
      params_schema: tool.inputSchema,
      return_schema: tool.outputSchema,
      meta: {
        version: '2',
        ids: [1, 2],
        mixed: '[1, "a"]',
        nested: '{"k": "v"}',
        nothing: 'null',
        a2c_tool_meta: '{"auto_apply": true, "alias": null, "tags": ["browser"], "ret_object_mapper": null}',
        MCP_TOOL_ANNOTATION:
          '{"title": null, "readOnlyHint": null, "destructiveHint": true, "idempotentHint": null, "openWorldHint": null, "custom": 1}',
      },
    });
  });

  it('no metadata configured: no a2c_tool_meta; no outputSchema: return_schema null', () => {
    const t = toSmcpTool({ name: 'x', description: 'd', inputSchema: { type: 'object' } }, mergedToolMeta(undefined, undefined));
    expect(t).toEqual({ name: 'x', description: 'd', params_schema: { type: 'object' }, return_schema: null, meta: {} });
  });

  it('merges per tool over the defaults field by field', () => {
    expect(mergedToolMeta({ tags: ['default_tag'], autoApply: false }, { autoApply: true })).toEqual({
      tags: ['default_tag'],
      autoApply: true,
    });
    expect(mergedToolMeta(undefined, { alias: 'go' })).toEqual({ alias: 'go' });
  });
});

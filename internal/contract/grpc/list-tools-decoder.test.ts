import { describe, expect, it } from 'vitest';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { ListToolsResponse } from '../gen/mcpd/control/v1/control.js';
import { decodeListToolsResponse } from './list-tools-decoder.js';

const plain = (r: ListToolsResponse) => ({
  ...r,
  tools: r.tools.map((t) => ({ ...t, toolJson: Buffer.from(t.toolJson).toString('hex') })),
});

describe('ListToolsResponse decoder', () => {
  const sample: ListToolsResponse = {
    etag: 'etag-ü',
    nextCursor: 'cursor==',
    tools: [
      { name: 'a__echo', server: 'a', toolJson: Buffer.from('{"name":"a__echo","description":"✓ ünïcødé"}'), definitionHash: 'h1' },
      { name: 'b__x', server: 'b', toolJson: Buffer.alloc(0), definitionHash: '' },
      { name: '', server: '', toolJson: Buffer.from('{}'), definitionHash: 'h3' },
    ],
    collisions: [{ name: 'dup', servers: ['a', 'b'], resolution: 'kept a' }],
    failures: [{ server: 'gone', error: 'cannot start server gone: "nodee" in /x: command not found (check "cmd" and PATH)' }],
    pending: ['late', 'later'],
  };

  it('gives what the generated decoder gives', () => {
    const bytes = Buffer.from(ListToolsResponse.encode(sample).finish());
    expect(plain(decodeListToolsResponse(bytes))).toEqual(plain(ListToolsResponse.decode(bytes)));
    expect(plain(decodeListToolsResponse(bytes))).toEqual(plain(sample));
    expect(decodeListToolsResponse(Buffer.alloc(0))).toEqual({
      etag: '',
      tools: [],
      nextCursor: '',
      collisions: [],
      failures: [],
      pending: [],
    });
  });

  it('skips fields it does not know, at both levels', () => {
    const w = new BinaryWriter();
    w.uint32((9 << 3) | 0).uint64(123); // unknown varint field
    w.uint32((2 << 3) | 2).fork();
    w.uint32((1 << 3) | 2).string('t');
    w.uint32((7 << 3) | 5).fixed32(7); // unknown fixed32 inside a tool
    w.uint32((3 << 3) | 2).bytes(Buffer.from('{"x":1}'));
    w.join();
    w.uint32((1 << 3) | 2).string('e');
    const bytes = Buffer.from(w.finish());
    const got = decodeListToolsResponse(bytes);
    expect(got.etag).toBe('e');
    expect(got.tools.map((t) => [t.name, t.toolJson.toString()])).toEqual([['t', '{"x":1}']]);
    expect(plain(got)).toEqual(plain(ListToolsResponse.decode(bytes)));
  });

  it('refuses a truncated message instead of reading past it', () => {
    const bytes = Buffer.from(ListToolsResponse.encode(sample).finish());
    expect(() => decodeListToolsResponse(bytes.subarray(0, bytes.length - 3))).toThrow(RangeError);
  });
});

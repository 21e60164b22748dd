import { describe, expect, it } from 'vitest';
import type { LineSplitter } from '../line-splitter.js';
import { jsonRpcLines, MAX_LINE_BYTES, parseJsonRpc } from './line-reader.js';

const readMessage = (r: LineSplitter) => {
  const line = r.next();
  return line === null ? null : parseJsonRpc(line);
};
const drain = (r: LineSplitter) => {
  const out: unknown[] = [];
  for (let m = readMessage(r); m !== null; m = readMessage(r)) out.push(m);
  return out;
};

describe('jsonRpcLines', () => {
  it('splits messages across and within chunks, CRLF included', () => {
    const r = jsonRpcLines();
    r.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\r\n{"jsonrpc":"2.0","me'));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    r.push(Buffer.from('thod":"ping","id":2}\n'));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 2 }]);
    expect(readMessage(r)).toBeNull();
  });

  it('keeps multi-byte characters split between chunks intact', () => {
    const r = jsonRpcLines();
    const bytes = Buffer.from('{"jsonrpc":"2.0","method":"n","params":{"t":"é漢"}}\n');
    r.push(bytes.subarray(0, 45));
    expect(readMessage(r)).toBeNull();
    r.push(bytes.subarray(45));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', method: 'n', params: { t: 'é漢' } }]);
  });

  it('rejects lines that are not JSON-RPC 2.0, and goes on with the next line', () => {
    const r = jsonRpcLines();
    r.push(Buffer.from('not json\n{"id":1}\n{"jsonrpc":"2.0","id":3,"result":{}}\n'));
    expect(() => readMessage(r)).toThrow(SyntaxError);
    expect(() => readMessage(r)).toThrow(/not a JSON-RPC 2.0 message/);
    expect(readMessage(r)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('refuses a line past MAX_LINE_BYTES and forgets what it held', () => {
    const r = jsonRpcLines();
    r.push(Buffer.alloc(MAX_LINE_BYTES, 0x20));
    expect(() => r.push(Buffer.from(' '))).toThrow(`a line exceeded ${MAX_LINE_BYTES} bytes without a newline`);
    r.push(Buffer.from('{"jsonrpc":"2.0","id":4,"result":{}}\n'));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', id: 4, result: {} }]);
  });
});

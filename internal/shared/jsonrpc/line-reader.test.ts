import { describe, expect, it } from 'vitest';
import { JsonRpcLineReader } from './line-reader.js';

const drain = (r: JsonRpcLineReader) => {
  const out: unknown[] = [];
  for (let m = r.readMessage(); m !== null; m = r.readMessage()) out.push(m);
  return out;
};

describe('JsonRpcLineReader', () => {
  it('splits messages across and within chunks, CRLF included', () => {
    const r = new JsonRpcLineReader();
    r.append(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\r\n{"jsonrpc":"2.0","me'));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    r.append(Buffer.from('thod":"ping","id":2}\n'));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 2 }]);
    expect(r.readMessage()).toBeNull();
  });

  it('keeps multi-byte characters split between chunks intact', () => {
    const r = new JsonRpcLineReader();
    const bytes = Buffer.from('{"jsonrpc":"2.0","method":"n","params":{"t":"é漢"}}\n');
    r.append(bytes.subarray(0, 45));
    expect(r.readMessage()).toBeNull();
    r.append(bytes.subarray(45));
    expect(drain(r)).toEqual([{ jsonrpc: '2.0', method: 'n', params: { t: 'é漢' } }]);
  });

  it('rejects lines that are not JSON-RPC 2.0, and goes on with the next line', () => {
    const r = new JsonRpcLineReader();
    r.append(Buffer.from('not json\n{"id":1}\n{"jsonrpc":"2.0","id":3,"result":{}}\n'));
    expect(() => r.readMessage()).toThrow(SyntaxError);
    expect(() => r.readMessage()).toThrow(/not a JSON-RPC 2.0 message/);
    expect(r.readMessage()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});

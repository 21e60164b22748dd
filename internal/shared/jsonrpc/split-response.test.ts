import { describe, expect, it } from 'vitest';
import { splitObjectMember, splitResultResponse } from './split-response.js';

describe('splitting a JSON-RPC result response', () => {
  it('cuts out the result as written, whatever the member order and spacing', () => {
    const result = { content: [{ type: 'text', text: '{"result":"\\u00fc ✓ \\" }"}' }], result: { nested: true }, isError: false };
    const text = JSON.stringify(result);
    for (const line of [
      `{"result":${text},"jsonrpc":"2.0","id":7}`,
      `{"jsonrpc":"2.0","id":7,"result":${text}}`,
      `{ "id" : 7 , "result" :  ${text} , "jsonrpc" : "2.0" }  `,
    ]) {
      const split = splitResultResponse(line);
      expect(split?.id).toBe(7);
      expect(split?.resultText).toBe(text);
      expect(split?.result).toEqual(result);
      expect(JSON.parse(line)).toEqual({ jsonrpc: '2.0', id: 7, result });
    }
  });

  it('keeps the server’s own spelling of the result (escapes, spacing, key order)', () => {
    const line = '{"jsonrpc":"2.0","id":1,"result":{ "b" : "\\u0041", "a" : [1.50, 2] }}';
    expect(splitResultResponse(line)?.resultText).toBe('{ "b" : "\\u0041", "a" : [1.50, 2] }');
  });

  it('declines what it cannot split soundly, so the caller parses it as usual', () => {
    for (const line of [
      '{"jsonrpc":"2.0","id":"s1","result":{}}', // string id
      '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"result"}}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\\"result\\":{}"}}',
      '{"jsonrpc":"2.0","id":1,"result":[1,2]}', // not an object
      '{"jsonrpc":"2.0","id":1,"result":{"a":1},"extra":true}',
      '{"result":{"a":1},"result":{"b":2},"jsonrpc":"2.0","id":1}', // duplicate key: the cut would be two values
      '{"jsonrpc":"2.0","id":1,"result":{"a":1}', // truncated
      '{"jsonrpc":"1.0","id":1,"result":{}}',
      'not json "result":{}',
    ]) {
      expect(splitResultResponse(line), line).toBeUndefined();
    }
  });

  it('cuts any last object-valued member, e.g. tools/call arguments', () => {
    const text = '{"name":"fx__echo","arguments":{"q":"}{","n":[1,{"arguments":{}}]}}';
    const split = splitObjectMember(text, 'arguments');
    expect(split?.valueText).toBe('{"q":"}{","n":[1,{"arguments":{}}]}');
    expect(split?.envelope).toEqual({ name: 'fx__echo', arguments: 0 });
    expect(splitObjectMember('{"arguments":{"a":1},"name":"x}"}', 'arguments')).toBeUndefined();
    expect(splitObjectMember('{"arguments":{"a":1},"arguments":5}', 'arguments')).toBeUndefined();
  });
});

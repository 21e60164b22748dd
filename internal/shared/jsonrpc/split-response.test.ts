import { describe, expect, it } from 'vitest';
import { splitObjectMember, splitResultBytes } from './split-response.js';

describe('splitting a JSON-RPC result response', () => {
  it('cuts out the result as written, whatever the member order and spacing', () => {
    const result = { content: [{ type: 'text', text: '{"result":"\\u00fc ✓ \\" }"}' }], result: { nested: true }, isError: false };
    const text = JSON.stringify(result);
    for (const line of [
      `{"result":${text},"jsonrpc":"2.0","id":7}`,
      `{"jsonrpc":"2.0","id":7,"result":${text}}`,
      `{ "id" : 7 , "result" :  ${text} , "jsonrpc" : "2.0" }  `,
    ]) {
      const split = splitResultBytes(Buffer.from(line));
      expect(split?.id).toBe(7);
      expect(split?.resultJson.toString()).toBe(text);
      expect(JSON.parse(line)).toEqual({ jsonrpc: '2.0', id: 7, result });
    }
  });

  it('keeps the server’s own spelling of the result (escapes, spacing, key order)', () => {
    const line = '{"jsonrpc":"2.0","id":1,"result":{ "b" : "\\u0041", "a" : [1.50, 2] }}';
    expect(splitResultBytes(Buffer.from(line))?.resultJson.toString()).toBe('{ "b" : "\\u0041", "a" : [1.50, 2] }');
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
      expect(splitResultBytes(Buffer.from(line)), line).toBeUndefined();
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

  it('cuts a result on its bytes: a view of the line as written, bytes a decoder would replace included', () => {
    const result = Buffer.concat([
      Buffer.from('{ "content" : [{"type":"text","text":"'),
      Buffer.from([0xc3, 0xa9, 0xff]),
      Buffer.from('"}],"isError":false }'),
    ]);
    for (const [before, after] of [
      ['{"jsonrpc":"2.0","id":7,"result":', '}'],
      ['{ "result" : ', ' , "id" : 7, "jsonrpc":"2.0"}'],
    ]) {
      const line = Buffer.concat([Buffer.from(before as string), result, Buffer.from(after as string)]);
      const split = splitResultBytes(line);
      expect(split?.id).toBe(7);
      expect(split?.isError).toBe(false);
      expect(split?.resultJson.equals(result)).toBe(true);
      expect(split?.resultJson.buffer).toBe(line.buffer);
    }
  });

  it('reads isError from the result’s own members only, as JSON.parse would', () => {
    const cut = (result: string) => splitResultBytes(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${result}}`))?.isError;
    expect(cut('{"content":[],"isError":true}')).toBe(true);
    expect(cut('{"is\u0045rror":true}')).toBe(true);
    expect(cut('{"isError":true,"isError":false}')).toBe(false);
    expect(cut('{"content":[{"isError":true}],"_meta":{"isError":true}}')).toBe(false);
    expect(cut('{"isError":"true"}')).toBe(false);
  });

  it('declines a result that is not exactly one JSON object, or not the only one', () => {
    for (const line of [
      '{"result":{"a":1},"jsonrpc":"2.0","id":1,"result":0}', // JSON.parse keeps the last
      '{"jsonrpc":"2.0","id":1,"result":{"a":tru}}',
      '{"jsonrpc":"2.0","id":1,"result":{"a":1},"id":2,"x":{}}', // would write members into the envelope
    ]) {
      expect(splitResultBytes(Buffer.from(line)), line).toBeUndefined();
    }
  });
});

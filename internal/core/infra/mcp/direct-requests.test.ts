import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { withRawJson, rawJsonOf } from '../../../shared/jsonrpc/raw-json.js';
import { splitResultBytes } from '../../../shared/jsonrpc/split-response.js';
import { DirectRequests } from './direct-requests.js';

/** A DirectRequests whose lines are kept, as a server's stdin would receive them. */
function setup() {
  const lines: Record<string, unknown>[] = [];
  const d = new DirectRequests('srv', (line) => {
    expect(line.endsWith('\n')).toBe(true);
    lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { d, lines };
}

describe('direct requests to a stdio server', () => {
  it('writes one JSON-RPC request line and resolves with the result of the same id', async () => {
    const { d, lines } = setup();
    const p = d.request('tools/call', { name: 'echo', arguments: { a: 1 } }, { timeoutMs: 5000 });
    expect(lines).toHaveLength(1);
    const req = lines[0] as { id: number; method: string; params: unknown };
    expect(req).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } });
    expect(req.id).toBeGreaterThanOrEqual(2 ** 40);
    expect(d.accept({ jsonrpc: '2.0', id: req.id, result: { content: [] } })).toBe(true);
    await expect(p).resolves.toEqual({ content: [] });
  });

  it('leaves the SDK its own ids and messages', () => {
    const { d } = setup();
    expect(d.accept({ jsonrpc: '2.0', id: 3, result: {} })).toBe(false);
    expect(d.accept({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })).toBe(false);
    expect(d.accept({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'sdk-1', progress: 1 } })).toBe(false);
    expect(d.accept({ jsonrpc: '2.0', id: 4, method: 'sampling/createMessage', params: {} })).toBe(false);
  });

  it('reports progress for its own token and keeps the caller’s _meta', async () => {
    const { d, lines } = setup();
    const seen: unknown[] = [];
    const p = d.request('tools/call', { name: 'slow', _meta: { trace: 't' } }, { timeoutMs: 5000, onProgress: (x) => seen.push(x) });
    const req = lines[0] as { id: number; params: { _meta: Record<string, unknown> } };
    expect(req.params._meta).toEqual({ trace: 't', progressToken: req.id });
    expect(
      d.accept({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: req.id, progress: 1, total: 2, message: 'half' },
      }),
    ).toBe(true);
    d.accept({ jsonrpc: '2.0', id: req.id, result: {} });
    await p;
    expect(seen).toEqual([{ progress: 1, total: 2, message: 'half' }]);
  });

  it('turns an error response into the SDK’s McpError, code and data kept', async () => {
    const { d, lines } = setup();
    const p = d.request('resources/read', { uri: 'dpe://x' }, { timeoutMs: 5000 });
    d.accept({ jsonrpc: '2.0', id: (lines[0] as { id: number }).id, error: { code: 4204, message: 'bad uri', data: { rule: 3 } } });
    const err = (await p.catch((e: unknown) => e)) as McpError;
    expect(err).toBeInstanceOf(McpError);
    expect(err.code).toBe(4204);
    expect(err.data).toEqual({ rule: 3 });
  });

  it('rejects a result that is not an object, saying which server and method', async () => {
    const { d, lines } = setup();
    const p = d.request('tools/call', {}, { timeoutMs: 5000 });
    d.accept({ jsonrpc: '2.0', id: (lines[0] as { id: number }).id, result: [1] } as never);
    await expect(p).rejects.toMatchObject({
      reason: 'DOWNSTREAM_ERROR',
      message: expect.stringMatching(/server srv sent a malformed result for tools\/call/),
    });
  });

  it('times out with RequestTimeout and tells the server; a late answer is dropped quietly', async () => {
    const { d, lines } = setup();
    const err = (await d.request('tools/call', {}, { timeoutMs: 20 }).catch((e: unknown) => e)) as McpError;
    expect(err.code).toBe(ErrorCode.RequestTimeout);
    const id = (lines[0] as { id: number }).id;
    expect(lines[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: id } });
    expect(d.accept({ jsonrpc: '2.0', id, result: {} })).toBe(true);
  });

  it('cancels on the signal, and fails everything pending when the connection closes', async () => {
    const { d, lines } = setup();
    const ac = new AbortController();
    const cancelled = d.request('tools/call', {}, { timeoutMs: 5000, signal: ac.signal });
    const pending = d.request('tools/call', {}, { timeoutMs: 5000 });
    ac.abort(new Error('caller left'));
    await expect(cancelled).rejects.toThrow('caller left');
    expect(lines[2]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: (lines[0] as { id: number }).id } });
    d.close();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(d.request('tools/call', {}, { timeoutMs: 5000 })).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it('fails at once when the line cannot be written', async () => {
    const d = new DirectRequests('srv', () => {
      throw new Error('server srv is not running (code 1)');
    });
    await expect(d.request('tools/call', {}, { timeoutMs: 5000 })).rejects.toThrow('not running');
  });

  it('keeps a tools/call result’s text as the server wrote it, and only for tools/call', async () => {
    const { d, lines } = setup();
    const call = d.request('tools/call', { name: 'echo' }, { timeoutMs: 5000 });
    const read = d.request('resources/read', { uri: 'x://y' }, { timeoutMs: 5000 });
    const [callId, readId] = lines.map((l) => (l as { id: number }).id);
    const text = '{ "content" : [ {"type":"text","text":"\\u00fc"} ] }';
    expect(d.acceptResult(splitResultBytes(Buffer.from(`{"jsonrpc":"2.0","id":${callId},"result":${text}}`))!)).toBe(true);
    expect(d.acceptResult(splitResultBytes(Buffer.from(`{"jsonrpc":"2.0","id":${readId},"result":{"contents":[]}}`))!)).toBe(true);
    expect(d.acceptResult(splitResultBytes(Buffer.from('{"jsonrpc":"2.0","id":5,"result":{}}'))!)).toBe(false);
    const r = await call;
    expect(r).toEqual(JSON.parse(text));
    expect(rawJsonOf(r)).toBe(text);
    expect(rawJsonOf(await read)).toBeUndefined();
  });

  it('hands a tools/call result to its sink as the line’s own bytes, and settles with the envelope only', async () => {
    const { d, lines } = setup();
    const got: Uint8Array[] = [];
    const ok = d.request('tools/call', { name: 'echo' }, { timeoutMs: 5000, onResultJson: (b) => void got.push(b) });
    const failed = d.request('tools/call', { name: 'echo' }, { timeoutMs: 5000, onResultJson: (b) => void got.push(b) });
    const [okId, failedId] = lines.map((l) => (l as { id: number }).id);
    const text = '{ "content" : [ {"type":"text","text":"\\u00fc"} ] ,"isError":false}';
    const line = Buffer.from(`{"jsonrpc":"2.0","id":${okId},"result":${text}}`);
    expect(d.acceptResult(splitResultBytes(line)!)).toBe(true);
    expect(
      d.acceptResult(splitResultBytes(Buffer.from(`{"jsonrpc":"2.0","id":${failedId},"result":{"content":[],"isError":true}}`))!),
    ).toBe(true);
    expect(Buffer.from(got[0] ?? []).toString()).toBe(text);
    expect(got[0]?.buffer).toBe(line.buffer);
    expect(await ok).toEqual({});
    expect(await failed).toEqual({ isError: true });
  });

  it('writes arguments whose text was kept as received, the other params serialised', () => {
    const lines: string[] = [];
    const d = new DirectRequests('srv', (line) => void lines.push(line));
    const argsText = '{ "b" : 1, "a" : "\\u00fc" }';
    const args = withRawJson(JSON.parse(argsText) as Record<string, unknown>, argsText);
    void d.request('tools/call', { name: 'echo', arguments: args } as never, { timeoutMs: 5000, onProgress: () => {} }).catch(() => {});
    expect(lines[0]).toContain(`"arguments":${argsText}}`);
    const req = JSON.parse(lines[0] ?? 'null') as { params: Record<string, unknown>; id: number };
    expect(req.params).toEqual({ name: 'echo', _meta: { progressToken: req.id }, arguments: { b: 1, a: 'ü' } });
    d.close();
  });

  describe('start (the lane without promises)', () => {
    /** Records each end `start` reports, in order. */
    function ends() {
      const seen: string[] = [];
      return {
        seen,
        done: {
          result: (r: unknown) => void seen.push(`result ${JSON.stringify(r)}`),
          error: (e: Error) => void seen.push(`error ${e.message}`),
        },
      };
    }

    it('reports the answer once, in the turn it is read, and nothing for a second answer', () => {
      const { d, lines } = setup();
      const e = ends();
      const call = d.start('tools/call', { name: 'echo', arguments: {} }, { timeoutMs: 5000 }, e.done);
      const id = (lines[0] as { id: number }).id;
      d.accept({ jsonrpc: '2.0', id, result: { content: [] } });
      d.accept({ jsonrpc: '2.0', id, result: { content: ['again'] } });
      call.cancel(new Error('too late'));
      expect(e.seen).toEqual(['result {"content":[]}']);
      expect(lines).toHaveLength(1);
    });

    it('cancels: tells the server, ends with the given error, and drops the late answer', () => {
      const { d, lines } = setup();
      const e = ends();
      const call = d.start('tools/call', { name: 'slow' }, { timeoutMs: 5000 }, e.done);
      const id = (lines[0] as { id: number }).id;
      call.cancel(new Error('cancelled by the client'));
      call.cancel(new Error('twice'));
      expect(lines[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the client' } });
      expect(lines).toHaveLength(2);
      d.accept({ jsonrpc: '2.0', id, result: {} });
      expect(e.seen).toEqual(['error cancelled by the client']);
    });

    it('ends on its timer as request() does', async () => {
      const { d, lines } = setup();
      const e = ends();
      d.start('tools/call', {}, { timeoutMs: 10 }, e.done);
      await expect.poll(() => e.seen).toEqual(['error MCP error -32001: Request timed out']);
      expect(lines[1]).toMatchObject({ method: 'notifications/cancelled' });
    });

    it('fails at once, before returning, when the connection is closed', () => {
      const { d, lines } = setup();
      d.close();
      const e = ends();
      d.start('tools/call', {}, { timeoutMs: 5000 }, e.done);
      expect(e.seen).toEqual(['error MCP error -32000: Connection closed']);
      expect(lines).toHaveLength(0);
    });

    it('ends every call in flight when the connection closes', () => {
      const { d } = setup();
      const a = ends();
      const b = ends();
      d.start('tools/call', {}, { timeoutMs: 5000 }, a.done);
      d.start('tools/call', {}, { timeoutMs: 5000 }, b.done);
      d.close();
      expect([...a.seen, ...b.seen]).toEqual(['error MCP error -32000: Connection closed', 'error MCP error -32000: Connection closed']);
    });
  });
});

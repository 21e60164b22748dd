import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../contract/control/control.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import { deadlineMs, SmcpToolCalls } from './smcp-tool-calls.js';

/** A callTool that runs until its signal aborts (what the pool does), recording what it was given. */
function pending() {
  const seen: { name: string; opts: CallOptions }[] = [];
  const api = {
    callTool: (_caller: string, name: string, _args: JsonObject, opts: CallOptions): Promise<JsonObject> => {
      seen.push({ name, opts });
      return new Promise((_, reject) => opts.signal?.addEventListener('abort', () => reject(new McpdError('CANCELLED', 'cancelled'))));
    },
  };
  return { api, seen };
}

const req = (req_id: string, agent = 'a') => ({ agent, req_id, computer: 'c', tool_name: 't', params: {}, timeout: 7 });

describe('SmcpToolCalls', () => {
  it('ends a call before the Server times it out: 1 s early, at most half the timeout', () => {
    expect(deadlineMs(30)).toBe(29_000);
    expect(deadlineMs(1)).toBe(500);
  });

  it('passes the timeout as the deadline, and a cancel of that agent and req_id gives the a2c_cancelled ack', async () => {
    const { api, seen } = pending();
    const calls = new SmcpToolCalls(api, () => 'caller');
    const r = calls.call(req('1'));
    expect(seen[0]?.opts.timeoutMs).toBe(6000); // 7 s, ending 1 s before the Server's timer
    expect(calls.cancel('other-agent', '1')).toBe(false); // another agent's req_id is not ours to cancel
    expect(calls.cancel('a', 'unknown')).toBe(false);
    expect(calls.cancel('a', '1')).toBe(true);
    expect(await r).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
    expect(calls.size).toBe(0);
  });

  it('refuses a req_id already in flight, and a dropped connection fails the calls as errors, not cancellations', async () => {
    const { api } = pending();
    const calls = new SmcpToolCalls(api, () => 'caller');
    const first = calls.call(req('1'));
    const dup = await calls.call(req('1'));
    expect(dup.isError).toBe(true);
    expect(JSON.stringify(dup.content)).toMatch(/already in flight/);
    calls.abortAll('link dropped');
    const r = await first;
    expect(r.isError).toBe(true);
    expect(r._meta).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ error_type: 'CANCELLED', code: 4003 });
  });

  it('keeps the progress the server sent in _meta.a2c_progress', async () => {
    const api = {
      callTool: async (_c: string, _n: string, _a: JsonObject, opts: CallOptions): Promise<JsonObject> => {
        opts.onProgress?.({ progress: 1, total: 2 });
        opts.onProgress?.({ progress: 2, total: 2, message: 'done' });
        return { content: [], _meta: { own: 1 } };
      },
    };
    const r = await new SmcpToolCalls(api, () => 'caller').call(req('p'));
    expect(r._meta).toEqual({
      own: 1,
      a2c_progress: [
        { progress: 1, total: 2 },
        { progress: 2, total: 2, message: 'done' },
      ],
    });
  });
});

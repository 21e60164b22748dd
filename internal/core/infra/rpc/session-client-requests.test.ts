import { describe, expect, it } from 'vitest';
import { ClientRequestError } from '../../../contract/control/client-requests.js';
import { GatewayChannel } from './session-client-requests.js';
import type { SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';

function setup() {
  const sent: SessionServerMessage[] = [];
  const ch = new GatewayChannel((m) => sent.push(m), 'caller "alice"');
  const lastRequestId = () => sent.filter((m) => m.request).at(-1)?.request?.id as number;
  return { sent, ch, lastRequestId };
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ClientRequestError,
  );

describe('GatewayChannel (core side of server→client requests)', () => {
  it('sends the request and resolves with the gateway response', async () => {
    const { sent, ch, lastRequestId } = setup();
    const p = ch.request('roots/list', { a: 1 }, { timeoutMs: 5000 });
    expect(sent[0]?.request?.method).toBe('roots/list');
    expect(JSON.parse(Buffer.from(sent[0]?.request?.paramsJson ?? []).toString())).toEqual({ a: 1 });
    ch.onResponse({ id: lastRequestId(), resultJson: Buffer.from('{"roots":[]}') });
    expect(await p).toEqual({ roots: [] });
  });

  it("rejects with the client's JSON-RPC code and message", async () => {
    const { ch, lastRequestId } = setup();
    const p = reason(ch.request('sampling/createMessage', {}, { timeoutMs: 5000 }));
    ch.onResponse({
      id: lastRequestId(),
      error: { reason: 'DOWNSTREAM_ERROR', message: 'User rejected sampling', specCode: -1, dataJson: Buffer.from('{"why":"no"}') },
    });
    const e = await p;
    expect([e.code, e.message, e.data]).toEqual([-1, 'User rejected sampling', { why: 'no' }]);
  });

  it('fails every waiting request at once when the gateway goes away, and later ones immediately', async () => {
    const { ch } = setup();
    const p = reason(ch.request('roots/list', {}, { timeoutMs: 60_000 }));
    ch.close('its gateway session ended');
    expect((await p).message).toMatch(/caller "alice" cannot answer .*its gateway session ended/);
    const later = await reason(ch.request('elicitation/create', {}, { timeoutMs: 60_000 }));
    expect(later.message).toBe('the MCP client of caller "alice" cannot answer elicitation/create: its gateway session ended');
  });

  it('cancels toward the gateway when the server cancels', async () => {
    const { sent, ch, lastRequestId } = setup();
    const ac = new AbortController();
    const p = reason(ch.request('sampling/createMessage', {}, { timeoutMs: 60_000, signal: ac.signal }));
    ac.abort();
    expect((await p).message).toMatch(/cancelled by the server/);
    expect(sent.at(-1)?.cancel?.id).toBe(lastRequestId());
  });

  it('times out a gateway that never answers, cancelling toward it', async () => {
    const { sent, ch } = setup();
    const e = await reason(ch.request('roots/list', {}, { timeoutMs: 20 }));
    expect([e.code, e.message]).toEqual([-32001, 'the MCP client of caller "alice" did not answer roots/list within 20 ms']);
    expect(sent.at(-1)?.cancel?.reason).toBe('timed out');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connected, join } from '../support/smcp-peers.js';
import { SmcpOffice } from '../support/smcp-office.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

// server:find_computer (our extension) on one node; the Redis registry's side is in smcp-redis.test.ts.
let server: SmcpProc;
const peers = new SmcpOffice('find');
const raw = () => connected(peers.socket(server.url));

beforeAll(async () => {
  server = await startSmcpProc();
});
afterAll(async () => {
  expect((await server.stop()).code).toBe(0);
});

describe('server:find_computer', () => {
  it('lists the offices holding a computer of that name, sorted, for an agent before or after it joined', async () => {
    for (const office of ['office-b', 'office-a']) {
      const c = peers.computer(server.url, 'laptop');
      expect(await c.join(office)).toEqual([true, null]);
    }
    const s = await raw();
    expect(await s.emitWithAck('server:find_computer', { agent: 'me', req_id: 'f1', computer: 'laptop' })).toEqual({
      offices: ['office-a', 'office-b'],
      req_id: 'f1',
    });
    expect(await join(s, 'agent', 'me', 'office-a')).toEqual([true, null]);
    expect(await s.emitWithAck('server:find_computer', { agent: 'me', req_id: 'f2', computer: 'desk' })).toEqual({
      offices: [],
      req_id: 'f2',
    });
    // Like every request, it is the connection's: any agent value is accepted (the reference SDK sends its agent_id).
    expect(await s.emitWithAck('server:find_computer', { agent: 'id-1', req_id: 'f3', computer: 'laptop' })).toEqual({
      offices: ['office-a', 'office-b'],
      req_id: 'f3',
    });
  });

  it('refuses computers, bad payloads and a request without an ack, clearly', async () => {
    const c = peers.computer(server.url, 'pc');
    expect(await c.join('office-c')).toEqual([true, null]);
    expect(await c.socket.emitWithAck('server:find_computer', { agent: 'pc', req_id: 'x', computer: 'pc' })).toMatchObject({
      code: 403,
      message: expect.stringMatching(/is for agents/) as unknown,
    });
    const s = await raw();
    expect(await s.emitWithAck('server:find_computer', { agent: 'me', req_id: 'x' })).toMatchObject({
      code: 400,
      details: { field: 'computer' },
    });
    // Still answering afterwards.
    expect(await s.emitWithAck('server:find_computer', { agent: 'me', req_id: 'y', computer: 'pc' })).toEqual({
      offices: ['office-c'],
      req_id: 'y',
    });
  });
});

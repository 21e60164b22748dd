import { describe, expect, it } from 'vitest';
import { CLIENT_EVENTS, isClientEvent, isNotifyEvent, isServerEvent, UPDATE_TO_NOTIFY } from './events.js';
import { isErrorPayload, joinFailureMessage, parseJoinFailure, SMCP_CODES } from './error-codes.js';
import { validateClientRequest, validateEnterOffice, validateGetFinder, validateListRoom, validateToolCall } from './validate.js';

const call = { agent: 'a', req_id: 'r1', computer: 'c', tool_name: 'echo', params: { message: 'hi' }, timeout: 5 };

function fieldOf(r: { ok: boolean; error?: { code: number; details?: Record<string, unknown> } }): unknown {
  expect(r.ok).toBe(false);
  expect(r.error?.code).toBe(400);
  return r.error?.details?.field;
}

describe('smcp validators', () => {
  it('accepts a well-formed tool call and keeps unknown extra fields', () => {
    const r = validateToolCall({ ...call, extra: 1 });
    expect(r).toEqual({ ok: true, value: { ...call, extra: 1 } });
  });

  it.each([
    [{ ...call, agent: undefined }, 'agent'],
    [{ ...call, req_id: '' }, 'req_id'],
    [{ ...call, computer: 7 }, 'computer'],
    [{ ...call, tool_name: 'x'.repeat(300) }, 'tool_name'],
    [{ ...call, params: [] }, 'params'],
    [{ ...call, params: undefined }, 'params'],
    [{ ...call, timeout: 1.5 }, 'timeout'],
    [{ ...call, timeout: 0 }, 'timeout'],
    [{ ...call, timeout: '5' }, 'timeout'],
  ])('names the bad field of a tool call (%#)', (payload, field) => {
    expect(fieldOf(validateToolCall(payload))).toBe(field);
  });

  it('rejects non-objects as the payload itself', () => {
    for (const p of [null, 'x', 3, [call]]) expect(fieldOf(validateToolCall(p))).toBe('payload');
  });

  it('checks join role, names and office', () => {
    expect(validateEnterOffice({ role: 'computer', name: 'n', office_id: 'o' }).ok).toBe(true);
    expect(fieldOf(validateEnterOffice({ role: 'robot', name: 'n', office_id: 'o' }))).toBe('role');
    expect(fieldOf(validateEnterOffice({ role: 'agent', name: 'n' }))).toBe('office_id');
    expect(fieldOf(validateListRoom({ agent: 'a', req_id: 'r' }))).toBe('office_id');
  });

  it('checks finder paging and keywords element by element', () => {
    const base = { agent: 'a', req_id: 'r', computer: 'c' };
    expect(validateGetFinder({ ...base, keywords: ['x'], offset: 0, limit: 0 }).ok).toBe(true);
    expect(fieldOf(validateGetFinder({ ...base, keywords: ['x', 2] }))).toBe('keywords.1');
    expect(fieldOf(validateGetFinder({ ...base, offset: -1 }))).toBe('offset');
  });

  it('validates every client event, including read_resource', () => {
    for (const e of Object.values(CLIENT_EVENTS)) expect(validateClientRequest(e, {}).ok).toBe(false);
    expect(fieldOf(validateClientRequest(CLIENT_EVENTS.readResource, { agent: 'a', req_id: 'r', computer: 'c', uri: ' ' }))).toBe('uri');
  });
});

describe('smcp events and errors', () => {
  it('classifies event names by prefix table, not by string prefix', () => {
    expect(isClientEvent('client:tool_call')).toBe(true);
    expect(isClientEvent('client:nope')).toBe(false);
    expect(isServerEvent('server:list_room')).toBe(true);
    expect(isNotifyEvent('notify:update_finder')).toBe(true);
    expect(UPDATE_TO_NOTIFY['server:update_desktop']).toBe('notify:update_desktop');
  });

  it('recognises flat error payloads but not tool results', () => {
    expect(isErrorPayload({ code: 404, message: 'x' })).toBe(true);
    expect(isErrorPayload({ content: [], code: 1, message: 'x' })).toBe(false);
    expect(isErrorPayload({ error: { code: 404, message: 'x' } })).toBe(false);
  });

  it('round-trips the code through the two-argument join ack', () => {
    const e = { code: SMCP_CODES.roomFull, message: "office 'o' already has agent 'a'" };
    expect(parseJoinFailure(joinFailureMessage(e))).toEqual(e);
    expect(parseJoinFailure('Internal server error: x')).toEqual({ code: 400, message: 'Internal server error: x' });
  });
});

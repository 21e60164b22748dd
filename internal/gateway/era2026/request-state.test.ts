import { describe, expect, it } from 'vitest';
import { EraError } from './protocol.js';
import { RequestStateSeal } from './request-state.js';

const claims = { park: 'p1', caller: 'alice', method: 'tools/call', target: 'ask', expires: 2_000 };
const expect1 = { caller: 'alice', method: 'tools/call', target: 'ask' };

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(EraError);
    expect((e as EraError).code).toBe(-32602);
    return (e as EraError).message;
  }
  throw new Error('not refused');
}

describe('requestState seal', () => {
  it('opens what it sealed, for the same caller and request, before it expires', () => {
    const seal = new RequestStateSeal();
    expect(seal.open(seal.seal(claims), expect1, 1_000)).toEqual(claims);
  });

  it('refuses an altered body, an altered mac and a state of another process', () => {
    const seal = new RequestStateSeal();
    const state = seal.seal(claims);
    const [body, mac] = state.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...claims, park: 'p2' })).toString('base64url');
    expect(refusal(() => seal.open(`${forged}.${mac}`, expect1, 1_000))).toMatch(/not issued by this gateway or was altered/);
    expect(refusal(() => seal.open(`${body}.${mac.slice(1)}A`, expect1, 1_000))).toMatch(/altered/);
    expect(refusal(() => new RequestStateSeal().open(state, expect1, 1_000))).toMatch(/altered/);
    expect(refusal(() => seal.open('garbage', expect1, 1_000))).toMatch(/altered/);
  });

  it('refuses a state used by another caller or for another request, and an expired one', () => {
    const seal = new RequestStateSeal();
    const state = seal.seal(claims);
    expect(refusal(() => seal.open(state, { ...expect1, caller: 'bob' }, 1_000))).toMatch(/another request/);
    expect(refusal(() => seal.open(state, { ...expect1, target: 'other' }, 1_000))).toMatch(/another request/);
    expect(refusal(() => seal.open(state, expect1, 3_000))).toMatch(/expired/);
  });
});

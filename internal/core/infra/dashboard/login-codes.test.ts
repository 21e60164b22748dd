import { describe, expect, it } from 'vitest';
import { LOGIN_CODE_TTL_MS, mintLoginCode } from '../../../contract/dashboard/login-code.js';
import { LoginCodes } from './login-codes.js';

describe('dashboard login codes', () => {
  const token = 'the-long-lived-token';

  it('redeems a code once; a second use is refused', () => {
    const codes = new LoginCodes(token);
    const code = mintLoginCode(token, 1_000);
    expect(codes.redeem(code, 2_000)).toBeUndefined();
    expect(codes.redeem(code, 2_001)).toMatch(/already used/);
  });

  it('refuses an expired code, one minted with another token, and a tampered one', () => {
    const codes = new LoginCodes(token);
    expect(codes.redeem(mintLoginCode(token, 0), LOGIN_CODE_TTL_MS + 1)).toMatch(/expired/);
    expect(codes.redeem(mintLoginCode('another-core', 0), 1)).toMatch(/not from this core/);
    const [nonce, , mac] = mintLoginCode(token, 0).split('.');
    expect(codes.redeem(`${nonce}.${10 * LOGIN_CODE_TTL_MS}.${mac}`, 1)).toMatch(/not from this core/); // later expiry, same mac
    expect(codes.redeem('not-a-code', 1)).toMatch(/malformed/);
    expect(codes.redeem(token, 1)).toMatch(/malformed/);
  });
});

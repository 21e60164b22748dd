import { checkLoginCode } from '../../../contract/dashboard/login-code.js';

/** Redeems login codes at most once each; a code's nonce is remembered until the code would have expired anyway. */
export class LoginCodes {
  private readonly used = new Map<string, number>();

  constructor(private readonly token: string) {}

  /** Undefined when the code is good and was not used before (it is used now); else why it is refused. */
  redeem(code: string, now = Date.now()): string | undefined {
    this.prune(now);
    const c = checkLoginCode(code, this.token, now);
    if (!c.ok) return c.why;
    if (this.used.has(c.nonce)) return 'this login link was already used (links work once)';
    this.used.set(c.nonce, c.expiry);
    return undefined;
  }

  private prune(now: number): void {
    for (const [nonce, expiry] of this.used) if (expiry < now) this.used.delete(nonce);
  }
}

import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../contract/dashboard/access-token.js';
import { LOGIN_TTL_MS, LoginSessions } from './login-sessions.js';

describe('dashboard logins', () => {
  const clock = (t: { now: number }) => () => t.now;

  it('a login is a fresh random value, live until logout', () => {
    const ended: string[] = [];
    const s = new LoginSessions([], (h) => ended.push(h));
    const a = s.open();
    const b = s.open();
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(s.check(a)).toBe(sha256(a));
    expect(s.check('nope')).toBeUndefined();
    expect(s.end(a)).toBe(true);
    expect(s.check(a)).toBeUndefined();
    expect(s.end(a)).toBe(false);
    expect(ended).toEqual([sha256(a)]);
    expect(s.check(b)).toBe(sha256(b));
  });

  it('expiry ends a login (and says so, so its sockets close)', () => {
    const t = { now: 1000 };
    const ended: string[] = [];
    const s = new LoginSessions([], (h) => ended.push(h), clock(t));
    const a = s.open();
    t.now += LOGIN_TTL_MS;
    expect(s.check(a)).toBeUndefined();
    expect(ended).toEqual([sha256(a)]);
    expect(s.handoff()).toEqual([]);
  });

  it("a previous core's login is renewed once, keeps its end, and cannot be renewed past it", () => {
    const t = { now: 1000 };
    const handed = [
      { sha256: sha256('old'), expires: 5000 },
      { sha256: sha256('late'), expires: 1500 },
    ];
    const s = new LoginSessions(handed, () => {}, clock(t));
    expect(s.check('old')).toBeUndefined(); // not live here until renewed
    expect(s.renewable('old')).toBe(true);
    const fresh = s.renew('old') ?? '';
    expect(s.check(fresh)).toBe(sha256(fresh));
    expect(s.renew('old')).toBeUndefined(); // single use
    expect(s.handoff()).toEqual([{ sha256: sha256(fresh), expires: 5000 }]); // bound to that login's end
    expect(s.renew(fresh)).toBeUndefined(); // a live value is no renewal ticket
    t.now = 2000;
    expect(s.renew('late')).toBeUndefined(); // that login ended meanwhile
    s.end(fresh);
  });
});

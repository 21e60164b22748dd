import { describe, expect, it } from 'vitest';
import { hostOriginRejection } from './request-guard.js';

describe('dashboard Host/Origin guard', () => {
  const t = { port: 9464 };

  it('accepts loopback names on our port, with or without a same-origin Origin', () => {
    for (const host of ['127.0.0.1:9464', 'localhost:9464', '[::1]:9464', '127.1.2.3:9464']) {
      expect(hostOriginRejection(host, undefined, t)).toBeUndefined();
      expect(hostOriginRejection(host, `http://${host}`, t)).toBeUndefined();
    }
  });

  it('refuses a rebound name, another port, a missing Host, a foreign or https origin', () => {
    expect(hostOriginRejection('evil.example:9464', undefined, t)).toMatch(
      /Host "evil.example:9464" is not this dashboard's loopback address/,
    );
    expect(hostOriginRejection('127.0.0.1:8080', undefined, t)).toMatch(/not this dashboard/);
    expect(hostOriginRejection('127.0.0.1', undefined, t)).toMatch(/not this dashboard/); // port 80
    expect(hostOriginRejection(undefined, undefined, t)).toBe('missing Host header');
    expect(hostOriginRejection('127.0.0.1:9464', 'http://evil.example', t)).toMatch(/Origin "http:\/\/evil.example"/);
    // Same site for cookies, different origin: another local web server must not reach us.
    expect(hostOriginRejection('127.0.0.1:9464', 'http://localhost:3000', t)).toMatch(/Origin/);
    expect(hostOriginRejection('127.0.0.1:9464', 'https://127.0.0.1:9464', t)).toMatch(/Origin/);
    expect(hostOriginRejection('127.0.0.1:9464', 'null', t)).toMatch(/Origin "null"/);
  });

  it('allows extra host names only when given (remote access was chosen)', () => {
    expect(hostOriginRejection('box.lan:9464', undefined, t)).toBeDefined();
    expect(hostOriginRejection('box.lan:9464', 'http://box.lan:9464', { ...t, extraHosts: ['box.lan'] })).toBeUndefined();
  });
});

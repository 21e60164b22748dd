import { describe, expect, it } from 'vitest';
import { allowedHostnames, bearerMatches, isLoopbackAddress, rebindingRejection } from './http-guard.js';

describe('isLoopbackAddress', () => {
  it('accepts only addresses this machine alone can reach', () => {
    for (const h of ['127.0.0.1', '127.3.2.1', 'localhost', '::1', '[::1]', 'LOCALHOST']) expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '128.0.0.1', '127.example.com'])
      expect(isLoopbackAddress(h), h).toBe(false);
  });
});

describe('rebindingRejection', () => {
  const allowed = allowedHostnames('127.0.0.1');
  it('lets loopback Host and Origin through, with or without a port', () => {
    expect(rebindingRejection('127.0.0.1:8080', undefined, allowed)).toBeUndefined();
    expect(rebindingRejection('localhost', 'http://localhost:3000', allowed)).toBeUndefined();
    expect(rebindingRejection('[::1]:9', 'http://[::1]:9', allowed)).toBeUndefined();
  });
  it('names the foreign header', () => {
    expect(rebindingRejection('evil.example.com:8080', undefined, allowed)).toMatch(/Host header "evil\.example\.com:8080"/);
    expect(rebindingRejection('127.0.0.1:8080', 'http://evil.example.com', allowed)).toMatch(/Origin "http:\/\/evil\.example\.com"/);
    expect(rebindingRejection('127.0.0.1:8080', 'null', allowed)).toMatch(/Origin "null"/);
    expect(rebindingRejection(undefined, undefined, allowed)).toMatch(/missing Host/);
    // With the listener's port: another local server's page (or a Host of another port) is refused.
    expect(rebindingRejection('127.0.0.1:8080', 'http://localhost:8080', allowed, 8080)).toBeUndefined();
    expect(rebindingRejection('127.0.0.1:8080', 'http://localhost:3000', allowed, 8080)).toMatch(/another port than this listener's 8080/);
    expect(rebindingRejection('127.0.0.1:3000', undefined, allowed, 8080)).toMatch(/names another port than this listener's 8080/);
    expect(rebindingRejection('localhost', undefined, allowed, 8080)).toMatch(/another port/);
  });
  it('allows the bound address itself when it is another loopback address', () => {
    expect(rebindingRejection('127.0.0.2:1', undefined, allowedHostnames('127.0.0.2'))).toBeUndefined();
    expect(rebindingRejection('127.0.0.2:1', undefined, allowed)).toMatch(/not this gateway's loopback address/);
  });
});

describe('bearerMatches', () => {
  it('accepts exactly the token, as a Bearer credential', () => {
    expect(bearerMatches('Bearer s3cret', 's3cret')).toBe(true);
    expect(bearerMatches('bearer s3cret', 's3cret')).toBe(true);
    expect(bearerMatches('Bearer s3cret2', 's3cret')).toBe(false);
    expect(bearerMatches('Bearer s3cre', 's3cret')).toBe(false);
    expect(bearerMatches('Basic s3cret', 's3cret')).toBe(false);
    expect(bearerMatches('s3cret', 's3cret')).toBe(false);
    expect(bearerMatches(undefined, 's3cret')).toBe(false);
  });
});

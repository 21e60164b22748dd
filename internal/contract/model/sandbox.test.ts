import { describe, expect, it } from 'vitest';
import { hostAllowed, parseHostRule, type HostRule } from './sandbox.js';

const rules = (...texts: string[]): HostRule[] => texts.map((t) => parseHostRule(t) as HostRule);

describe('hostAllowed', () => {
  it('a named host on any port, case-insensitively; another host not', () => {
    const r = rules('API.example.com');
    expect(hostAllowed(r, 'api.example.com', 443)).toBe(true);
    expect(hostAllowed(r, 'Api.Example.Com', 8443)).toBe(true);
    expect(hostAllowed(r, 'api.example.com.evil.test', 443)).toBe(false);
    expect(hostAllowed(r, 'www.example.com', 443)).toBe(false);
  });

  it('*.domain: its sub-domains at any depth, not the domain itself nor a name that merely ends alike', () => {
    const r = rules('*.example.com');
    expect(hostAllowed(r, 'a.example.com', 443)).toBe(true);
    expect(hostAllowed(r, 'a.b.example.com', 80)).toBe(true);
    expect(hostAllowed(r, 'example.com', 443)).toBe(false);
    expect(hostAllowed(r, 'badexample.com', 443)).toBe(false);
  });

  it('host:port: that port only; [v6]:port as well', () => {
    const r = rules('api.example.com:8443', '[2001:db8::1]:53');
    expect(hostAllowed(r, 'api.example.com', 8443)).toBe(true);
    expect(hostAllowed(r, 'api.example.com', 443)).toBe(false);
    expect(hostAllowed(r, '[2001:db8::1]', 53)).toBe(true);
    expect(hostAllowed(r, '2001:db8::1', 54)).toBe(false);
  });

  it('* allows any host; no rules allow none', () => {
    expect(hostAllowed(rules('*'), 'anything.test', 1)).toBe(true);
    expect(hostAllowed([], 'anything.test', 1)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { appCsp, declaredCsp } from './app-csp.js';

const URI = 'ui://srv/app.html';

describe('an MCP App frame CSP', () => {
  it('without a declaration is the restrictive default of the MCP Apps spec, without the dashboard as self', () => {
    const csp = appCsp(declaredCsp(URI, undefined));
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'unsafe-inline'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("frame-src 'none'");
    expect(csp).toContain('img-src data:');
    expect(csp).toContain('sandbox allow-scripts');
    expect(csp).not.toContain("'self' ");
  });

  it('names each declared origin in its directive, and only there', () => {
    const csp = appCsp(
      declaredCsp(URI, {
        ui: {
          csp: {
            connectDomains: ['https://api.example.com', 'wss://rt.example.com'],
            resourceDomains: ['https://*.cdn.example.com'],
            frameDomains: ['https://player.example.com:8443'],
          },
        },
      }),
    );
    const directive = (name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));
    expect(directive('connect-src')).toBe('connect-src https://api.example.com wss://rt.example.com');
    expect(directive('script-src')).toBe("script-src 'unsafe-inline' https://*.cdn.example.com");
    expect(directive('img-src')).toBe('img-src data: https://*.cdn.example.com');
    expect(directive('frame-src')).toBe('frame-src https://player.example.com:8443');
  });

  it.each([
    [
      { ui: { csp: { connectDomains: ['https://ok.example.com; script-src *'] } } },
      /connectDomains\[0\] "https:\/\/ok.example.com; script-src \*" is not an origin/,
    ],
    [
      { ui: { csp: { resourceDomains: ["'unsafe-eval'"] } } },
      /resourceDomains\[0\] .* is not an origin: the server must declare scheme:\/\/host/,
    ],
    [{ ui: { csp: { frameDomains: 'https://x.example.com' } } }, /_meta\.ui\.csp\.frameDomains must be an array of origins/],
    [{ ui: { csp: { baseUriDomains: [42] } } }, /baseUriDomains\[0\] 42 is not an origin/],
    [{ ui: { csp: ['https://x.example.com'] } }, /_meta\.ui\.csp must be an object/],
  ])('refuses a declaration that is not a list of origins (%j), naming the resource and the field', (meta, message) => {
    expect(() => declaredCsp(URI, meta)).toThrow(message);
    expect(() => declaredCsp(URI, meta)).toThrow(URI);
  });
});

import { describe, expect, it } from 'vitest';
import { callerFromLink, dashboardUrl } from './open-command.js';
import { desktopEntry } from './url-handler-command.js';

describe('mcpd open and the mcpd:// link', () => {
  it('takes the caller from mcpd://start?caller=NAME', () => {
    expect(callerFromLink('mcpd://start?caller=vscode')).toBe('vscode');
    expect(callerFromLink('mcpd://start')).toBeUndefined();
    expect(callerFromLink('mcpd://start/?caller=claude-desktop')).toBe('claude-desktop');
  });

  it('refuses anything else with what a good link looks like', () => {
    expect(() => callerFromLink('https://evil.example/?caller=x')).toThrow(/not an mcpd link; expected mcpd:\/\/start\?caller=NAME/);
    expect(() => callerFromLink('mcpd://stop?caller=x')).toThrow(/not an mcpd link/);
    expect(() => callerFromLink('not a url')).toThrow(/is not a URL/);
    expect(() => callerFromLink('mcpd://start?caller=../../etc')).toThrow(/caller "..\/..\/etc" is not a valid caller name/);
    expect(() => callerFromLink('mcpd://start?caller=')).toThrow(/is not a valid caller name/);
  });

  it('builds a single-use login link, never the token, with the caller page', () => {
    const r = { url: 'http://127.0.0.1:9464', token: 'a+b', pid: 1 };
    const url = dashboardUrl(r, 'vs code');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:9464\/\?login=[A-Za-z0-9_-]{22}\.\d+\.[A-Za-z0-9_-]{43}#\/caller\/vs%20code\/tools$/);
    expect(url).not.toContain('token');
    expect(url).not.toContain(encodeURIComponent(r.token));
    expect(dashboardUrl(r)).toMatch(/#\/overview$/);
    expect(dashboardUrl(r)).not.toBe(dashboardUrl(r)); // a fresh code each time
  });

  it('writes an x-scheme-handler desktop entry with quoted arguments', () => {
    const text = desktopEntry({
      node: '/usr/bin/node',
      coreEntry: '/opt/my "mcpd"/main.js',
      configDir: '/home/u/$store',
      env: {},
      write: () => {},
    });
    expect(text).toMatch(/^MimeType=x-scheme-handler\/mcpd;$/m);
    expect(text).toContain('Exec="/usr/bin/node" "/opt/my \\"mcpd\\"/main.js" "open" "--config" "/home/u/\\$store" --link %u');
  });
});

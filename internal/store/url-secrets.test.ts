import { describe, expect, it } from 'vitest';
import { basicCredential, maskUrlSecrets, urlSecrets } from './url-secrets.js';

describe('credentials in a URL', () => {
  it('takes userinfo, its Basic credential and query values (short ones only under secret-looking names) for secrets', () => {
    const s = urlSecrets('https://bob:p%40ss@h.example/mcp?token=ab1&access_token=a%2Fb&format=json&region=eu-west-1-long&flag');
    expect(s).toEqual(
      expect.arrayContaining([
        'p%40ss',
        'p@ss',
        'bob',
        Buffer.from('bob:p@ss').toString('base64'),
        'ab1',
        'a%2Fb',
        'a/b',
        'eu-west-1-long',
      ]),
    );
    // A short value under a plain name would garble every text it appears in ("application/json").
    expect(s).not.toContain('json');
    expect(urlSecrets('not a url')).toEqual([]);
    expect(urlSecrets(undefined)).toEqual([]);
  });

  it('shows a URL with the password and every query value masked, names kept', () => {
    expect(maskUrlSecrets('https://bob:pw@h.example/mcp?api_key=k&x=1&flag')).toBe('https://bob:***@h.example/mcp?api_key=***&x=***&flag');
    expect(maskUrlSecrets('http://h.example/mcp')).toBe('http://h.example/mcp');
  });

  it('a URL without userinfo has no Basic credential', () => {
    expect(basicCredential(new URL('http://h.example/'))).toBeUndefined();
    expect(basicCredential(new URL('http://u%3Aa:x@h.example/'))).toBe(Buffer.from('u:a:x').toString('base64'));
  });
});

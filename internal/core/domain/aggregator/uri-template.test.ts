import { describe, expect, it } from 'vitest';
import { matchesUriTemplate } from './uri-template.js';

describe('matchesUriTemplate', () => {
  it('matches level-1 variables within one segment', () => {
    expect(matchesUriTemplate('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/3')).toBe(true);
    expect(matchesUriTemplate('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/3/4')).toBe(false);
    expect(matchesUriTemplate('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/3')).toBe(false);
    expect(matchesUriTemplate('file:///{a}.{b}', 'file:///x.json')).toBe(true);
  });
  it('treats template literals literally and tolerates an added query', () => {
    expect(matchesUriTemplate('a.b://{x}', 'aXb://1')).toBe(false);
    expect(matchesUriTemplate('dpe://docs/{doc}/pages/{n}', 'dpe://docs/r/pages/2?format=markdown')).toBe(true);
  });
  it('lets reserved expansion span segments and query expressions be optional', () => {
    expect(matchesUriTemplate('file://{+path}', 'file:///etc/hosts')).toBe(true);
    expect(matchesUriTemplate('search://q{?term,limit}', 'search://q')).toBe(true);
    expect(matchesUriTemplate('search://q{?term,limit}', 'search://q?term=x&limit=2')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { contextKindOf, parseContextUri, renderDesktopText } from './context-uri.js';

describe('context URIs', () => {
  it('recognises only mcpd://desktop and mcpd://finder', () => {
    expect(contextKindOf('mcpd://desktop')).toBe('desktop');
    expect(contextKindOf('mcpd://finder?limit=3')).toBe('finder');
    expect(contextKindOf('mcpd://desktop/')).toBe('desktop');
    expect(contextKindOf('mcpd://desktops')).toBeUndefined();
    expect(contextKindOf('window://desktop')).toBeUndefined();
  });
  it('parses desktop and finder queries into session params', () => {
    expect(parseContextUri('mcpd://desktop?size=3&window=window%3A%2F%2Fa%2Fb&format=json')).toEqual({
      kind: 'desktop',
      params: { size: 3, window: 'window://a/b' },
      format: 'json',
    });
    expect(parseContextUri('mcpd://finder?keywords=a,b&keywords=c&file_type=md&offset=0&limit=5').params).toEqual({
      keywords: ['a', 'b', 'c'],
      file_type: 'md',
      offset: 0,
      limit: 5,
    });
    expect(parseContextUri('mcpd://finder?keywords=c%2B%2B+x').params).toEqual({ keywords: ['c+++x'] });
    expect(parseContextUri('mcpd://finder').params).toEqual({});
  });
  it('rejects unknown keys, repeats, bad integers and formats, naming them', () => {
    expect(() => parseContextUri('mcpd://desktop?limit=1')).toThrow(/unknown query key "limit".*size, window, format/);
    expect(() => parseContextUri('mcpd://desktop?size=1&size=2')).toThrow(/"size" is given twice/);
    expect(() => parseContextUri('mcpd://finder?offset=1.5')).toThrow(/offset="1.5" is not an integer/);
    expect(() => parseContextUri('mcpd://desktop?format=xml')).toThrow(/format=text or format=json/);
  });
  it('renders windows under numbered headers; nothing for an empty desktop', () => {
    expect(renderDesktopText(['window://a\n\nx', 'window://b'])).toBe(
      '----- window 1 of 2 -----\nwindow://a\n\nx\n\n----- window 2 of 2 -----\nwindow://b',
    );
    expect(renderDesktopText([])).toBe('');
  });
});

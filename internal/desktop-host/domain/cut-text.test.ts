import { describe, expect, it } from 'vitest';
import { LONE_SURROGATE_RE, cutText } from '../../shared/unicode.js';
import { parseKeys } from './validate.js';

describe('cutText', () => {
  it('never leaves half of a surrogate pair at the cut', () => {
    const s = `${'x'.repeat(79)}😀tail`;
    expect(cutText(s, 80)).toBe('x'.repeat(79));
    expect(cutText(s, 81)).toBe(`${'x'.repeat(79)}😀`);
    expect(cutText('short', 80)).toBe('short');
  });

  it('keeps error texts of the desktop host well-formed', () => {
    let message = '';
    try {
      parseKeys([`${'😀'.repeat(60)}`]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/params\.keys\[0\]/);
    expect(LONE_SURROGATE_RE.test(message)).toBe(false);
  });
});

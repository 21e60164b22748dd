import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';
import { escapeField, escapeTerminal } from './terminal-text.js';

describe('text from other processes printed for people', () => {
  it('escapes terminal control sequences and bidi overrides, keeping newlines of multi-line text', () => {
    expect(escapeTerminal('a\x1b[2Jb\r\u202ec\nd\te')).toBe('a\\x1b[2Jb\\x0d\\u202ec\nd\te');
    expect(escapeField('evil\nforged-row\tx')).toBe('evil\\nforged-row\\tx');
  });

  it('keeps a caller name with a newline from forging a table row', () => {
    const text = renderTable(['CALLER', 'PROFILE'], [['mallory\nroot         admin', 'default']]);
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(2);
    expect(text).toContain('mallory\\nroot');
  });
});

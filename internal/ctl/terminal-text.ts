/**
 * Control characters (except newline and tab), C1 controls and bidirectional overrides, written as
 * visible escapes. Caller names, server stderr and error messages come from other processes: printed raw,
 * an escape sequence could forge a row of `mcpdctl status` or rewrite the terminal.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A caller name or other one-line field: newlines and tabs escaped too, so it cannot start a row. */
export function escapeField(text: string): string {
  return escapeTerminal(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

/** Profile and server names: they appear in file names, tool prefixes and CLI arguments. */
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const NAME_HINT = 'use letters, digits, "-" and "_" only, starting with a letter or digit, at most 64 characters';

export function isValidName(name: string): boolean {
  return NAME_RE.test(name);
}

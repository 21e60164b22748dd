/**
 * A value the code has proven present where the type cannot see the proof: an index inside a loop bound
 * or after a length check, a regex group that is not optional, a key just set. `noUncheckedIndexedAccess`
 * types such reads `T | undefined`; `must` states the proof once and, were it ever wrong, throws an
 * internal error naming what was missing instead of letting `undefined` travel on.
 */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`internal error: ${what} is missing`);
  return value;
}

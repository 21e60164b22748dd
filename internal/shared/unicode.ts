/** A UTF-16 surrogate without its partner: such text is not well-formed Unicode and cannot be URI-encoded. */
export const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first `max` UTF-16 units of `s`, one fewer when the cut would split a surrogate pair (no lone half in messages). */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A UTF-16 surrogate without its partner: such text is not well-formed Unicode and cannot be URI-encoded. */
export const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * JSON text remembered for a parsed value, so a value that is passed on unchanged (a tool result on its
 * way from a server to a client) is written out as received instead of serialised again. Only for
 * values nobody modifies after parsing.
 *
 * The text rides on the value itself, under a symbol, non-enumerable: JSON.stringify and spreads skip
 * it (a modified copy never carries the original's text), and it goes when the value goes. A WeakMap did
 * the same, but its entries for young objects made every scavenge process ephemerons — 2–3% of the
 * gateway's and the core's CPU under a 16-loop tool-call load. The type says which values were given
 * it: WithRawJson<T>, made only by withRawJson.
 */
const RAW_JSON: unique symbol = Symbol('mcpd.rawJson');

/** A parsed value that carries the JSON text it was parsed from (read it with rawJsonOf). */
export type WithRawJson<T extends object> = T & { readonly [RAW_JSON]: string };

/** `value`, parsed from `text`, now carrying it. */
export function withRawJson<T extends object>(value: T, text: string): WithRawJson<T> {
  Object.defineProperty(value, RAW_JSON, { value: text });
  return value as WithRawJson<T>;
}

/**
 * The text a value was parsed from, or undefined. Checked at run time even for a WithRawJson: a spread
 * copy keeps the type (TypeScript does not know the symbol is not enumerable) but not the text.
 */
export function rawJsonOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = (value as { [RAW_JSON]?: unknown })[RAW_JSON];
  return typeof text === 'string' ? text : undefined;
}

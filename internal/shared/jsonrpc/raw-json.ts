/**
 * JSON text remembered for a parsed value, so a value that is passed on unchanged (a tool result on its
 * way from a server to a client) is written out as received instead of serialised again. Only for
 * values nobody modifies after parsing.
 *
 * The text rides on the value itself, under a symbol, non-enumerable: JSON.stringify and spreads skip
 * it (a modified copy never carries the original's text), and it goes when the value goes. A WeakMap did
 * the same, but its entries for young objects made every scavenge process ephemerons — 2–3% of the
 * gateway's and the core's CPU under a 16-loop tool-call load.
 */
const TEXT = Symbol('mcpd.rawJson');

export function rememberJson<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, TEXT, { value: text });
  return value;
}

export function rememberedJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = (value as { [TEXT]?: unknown })[TEXT];
  return typeof text === 'string' ? text : undefined;
}

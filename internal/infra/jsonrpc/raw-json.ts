/**
 * JSON text remembered for a parsed value, so a value that is passed on unchanged (a tool result on its
 * way from a server to a client) is written out as received instead of serialised again. Only for
 * values nobody modifies after parsing; a WeakMap, so nothing outlives its value.
 */
const texts = new WeakMap<object, string>();

export function rememberJson<T extends object>(value: T, text: string): T {
  texts.set(value, text);
  return value;
}

export function rememberedJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}

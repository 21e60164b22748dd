/**
 * `json.dumps(v)` as Python writes it with default arguments: ", " and ": " separators and non-ASCII
 * escaped as \uXXXX. The reference agents compare these strings as produced by the Python SDK, so
 * ours must read the same.
 */
export function pythonJsonDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return asciiString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(pythonJsonDumps).join(', ')}]`;
  if (typeof v === 'object') {
    const parts = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${asciiString(k)}: ${pythonJsonDumps(x)}`);
    return `{${parts.join(', ')}}`;
  }
  return 'null';
}

function asciiString(s: string): string {
  return JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

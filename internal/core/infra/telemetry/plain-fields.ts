/**
 * Whether every field is a string, a finite number, a boolean, null or undefined: JSON as it stands, so a log
 * entry of them needs no replacer and no round trip (most log calls, and the one every tool call makes).
 */
export function plainFields(fields: Record<string, unknown>): boolean {
  for (const k in fields) {
    const v = fields[k];
    const t = typeof v;
    if (t === 'string' || t === 'boolean' || v === null || v === undefined) continue;
    if (t === 'number' && Number.isFinite(v)) continue;
    return false;
  }
  return true;
}

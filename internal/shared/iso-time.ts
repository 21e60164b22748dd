/**
 * `new Date(ms).toISOString()` for the times the hot paths stamp (a log line, a history record, an audit
 * entry per tool call): the text up to the second is made once per second and reused, the milliseconds
 * appended. toISOString cost ~1.4 µs a call here, several times per tool call.
 */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Outside years 0–9999 toISOString writes a signed six-digit year; such times take the general path.
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253402300800000) return new Date(ms).toISOString();
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

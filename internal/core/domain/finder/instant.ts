/**
 * Milliseconds since the epoch for a last_modified string, NaN when it is not a date.
 * Canonical UTC ISO strings (what servers almost always send) are decoded with arithmetic,
 * which is several times faster than Date.parse when sorting 100,000 documents; anything
 * else (offsets, date-only, other formats) goes through Date.parse.
 */
export function parseInstant(s: string): number {
  const fast = parseUtcIso(s);
  return fast ?? Date.parse(s);
}

/** `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.sssZ`, read by character codes (no regex, no allocation). */
function parseUtcIso(s: string): number | undefined {
  const len = s.length;
  if ((len !== 20 && len !== 24) || s.charCodeAt(len - 1) !== 90 /* Z */) return undefined;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58)
    return undefined;
  if (len === 24 && s.charCodeAt(19) !== 46 /* . */) return undefined;
  const y = digits(s, 0, 4),
    mo = digits(s, 5, 2),
    d = digits(s, 8, 2),
    h = digits(s, 11, 2),
    mi = digits(s, 14, 2),
    sec = digits(s, 17, 2);
  const ms = len === 24 ? digits(s, 20, 3) : 0;
  if (
    y < 0 ||
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > daysInMonth(y, mo) ||
    h < 0 ||
    h > 23 ||
    mi < 0 ||
    mi > 59 ||
    sec < 0 ||
    sec > 59 ||
    ms < 0
  )
    return undefined;
  return daysFromCivil(y, mo, d) * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + ms;
}

/** The decimal value of s[at, at+n), or -1 if any character is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Howard Hinnant's days_from_civil: proleptic Gregorian date → days since 1970-01-01. */
function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

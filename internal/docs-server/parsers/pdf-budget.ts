import { createInflate } from 'node:zlib';
import { ParseError } from './types.js';

/**
 * The most one input byte can become, per expanding PDF filter: deflate's bound (a 258-byte match in
 * 2 bits), LZW's (a 12-bit code for a string of up to 4,096 bytes), run-length's (2 bytes → 128).
 * Only a stream that cannot be counted (below) is charged at these rates.
 */
const WORST_RATIO: Record<string, number> = { FlateDecode: 1032, Fl: 1032, LZWDecode: 2731, LZW: 2731, RunLengthDecode: 64, RL: 64 };

interface PdfStream {
  /** Offset of the stream's first data byte. */
  data: number;
  /** Its dictionary's text, name escapes (`/Fl#61teDecode`) decoded as pdf.js decodes them. */
  dict: string;
}

/**
 * Counts what a PDF's compressed streams actually inflate to, keeping none of it, and fails once the
 * count passes `limit`: pdf.js inflates a stream whole into one growing Uint8Array, memory the
 * worker's heap limit does not cover (a few KB of FlateDecode became hundreds of MiB). Every stream
 * whose data is a zlib stream is inflated once here, from its first byte to the end of the zlib data
 * (as pdf.js does, whatever `/Length` says), counting the bytes that come out. A stream this cannot
 * count — an encrypted document's, one that zlib refuses part-way, LZW or run-length — is charged the
 * most its filters could make of its bytes.
 */
export async function checkPdfInflation(bytes: Uint8Array, limit: number): Promise<void> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const encrypted = /\/Encrypt\b/.test(unescapeNames(text));
  let total = 0;
  for (const s of streams(text)) {
    const ratio = worstRatio(s.dict);
    if (ratio === 1 && !isZlib(bytes, s.data)) continue;
    const counted = encrypted || !isZlib(bytes, s.data) ? { bytes: 0, clean: false } : await inflatedBytes(bytes, s.data, limit - total);
    total += counted.bytes;
    if (!counted.clean) total += rawLength(text, s) * ratio;
    if (total > limit) throw tooBig(limit, s, counted.clean, encrypted);
  }
}

function tooBig(limit: number, s: PdfStream, counted: boolean, encrypted: boolean): ParseError {
  const why = counted
    ? 'counting the bytes its streams actually inflate to'
    : encrypted
      ? 'its streams are encrypted, so each is charged the most its filters could inflate it to'
      : 'a stream that could not be inflated here is charged the most its filters could inflate it to';
  return new ParseError(
    `the PDF inflates to more than ${limit} bytes (stopped at the stream at byte ${s.data}; ${why}), over the ${limit}-byte limit (--max-unpacked-bytes)`,
  );
}

/** Every `stream` keyword (not `endstream`) and the dictionary before it, back to its `obj`. */
function* streams(text: string): Generator<PdfStream> {
  const re = /(?<!end)stream(\r\n|\n|\r)?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const obj = text.lastIndexOf('obj', m.index);
    yield { data: m.index + m[0].length, dict: unescapeNames(text.slice(obj < 0 ? Math.max(0, m.index - 4096) : obj, m.index)) };
  }
}

function unescapeNames(text: string): string {
  return text.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The product of the expanding filters the dictionary names (1 when it names none). */
function worstRatio(dict: string): number {
  let r = 1;
  for (const m of dict.matchAll(/\/(FlateDecode|Fl|LZWDecode|LZW|RunLengthDecode|RL)\b/g)) r *= WORST_RATIO[m[1] ?? ''] ?? 1;
  return r;
}

/** The stream's stored bytes: a direct `/Length`, else (an indirect one can say anything) up to the file's end. */
function rawLength(text: string, s: PdfStream): number {
  const direct = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(s.dict);
  const rest = text.length - s.data;
  return direct ? Math.min(Number(direct[1]), rest) : rest;
}

/** A zlib header as pdf.js's FlateStream checks it: deflate, a valid check value, no preset dictionary. */
function isZlib(bytes: Uint8Array, at: number): boolean {
  const cmf = bytes[at];
  const flg = bytes[at + 1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0 && (flg & 0x20) === 0;
}

/**
 * Inflates from `at` until the zlib data ends (trailing bytes are ignored), counting and dropping the
 * output; stops as soon as the count passes `room`. `clean` is false when zlib refused the data
 * part-way (pdf.js's own inflater may go on), true when it ended or the file did.
 */
function inflatedBytes(bytes: Uint8Array, at: number, room: number): Promise<{ bytes: number; clean: boolean }> {
  return new Promise((resolve) => {
    const inflate = createInflate();
    let n = 0;
    let done = false;
    const finish = (clean: boolean): void => {
      if (done) return;
      done = true;
      // Destroyed, the inflater asks for no more input: nothing past the limit is inflated or kept.
      inflate.destroy();
      resolve({ bytes: n, clean });
    };
    inflate.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > room) finish(true);
    });
    inflate.on('end', () => finish(true));
    // A truncated stream (the file ended) is counted as far as it went, as pdf.js reads it; any other
    // error leaves the stream uncounted.
    inflate.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'Z_BUF_ERROR'));
    inflate.end(bytes.subarray(at));
  });
}

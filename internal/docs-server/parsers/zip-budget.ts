import type JSZipModule from 'jszip';
import { ParseError } from './types.js';

// jszip is what exceljs unpacks a workbook with; loaded only by servers that meet a workbook.
let jszip: Promise<typeof JSZipModule> | undefined;
const loadJsZip = (): Promise<typeof JSZipModule> => (jszip ??= import('jszip').then((m) => m.default));

/**
 * Inflates every entry of a zip once, counting the bytes that actually come out and keeping none of
 * them, and fails as soon as the count passes `limit`. The zip's directory may lie about sizes (a
 * 1.5 MB file declaring 1,000 bytes inflated to over a gigabyte of Buffers, which the worker's heap
 * limit does not cover): only the real count is trusted. It is done with the same library, on the
 * same bytes, that the reader (exceljs → JSZip) then unpacks, so the reader meets exactly the entries
 * and sizes counted here. Memory meanwhile is a stream's buffer, not the entry.
 */
export async function checkInflatedSize(bytes: Uint8Array, limit: number, what: string): Promise<void> {
  const JSZip = await loadJsZip();
  let zip: JSZipModule;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (e) {
    throw new ParseError(`not a readable ${what}: ${(e as Error).message}`);
  }
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    total = await countEntry(entry, total, limit, what);
  }
}

/** Adds the entry's inflated size to `before`; stops the inflation (pausing the stream) once past `limit`. */
function countEntry(entry: JSZipModule.JSZipObject, before: number, limit: number, what: string): Promise<number> {
  const name = JSON.stringify(entry.name);
  return new Promise<number>((resolve, reject) => {
    const stream = entry.nodeStream('nodebuffer');
    let total = before;
    let settled = false;
    const finish = (error?: ParseError): void => {
      if (settled) return;
      settled = true;
      // A paused stream stops asking JSZip for more: nothing past the limit is inflated or kept.
      stream.pause();
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(total);
    };
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        finish(
          new ParseError(
            `the ${what} unpacks to more than ${limit} bytes (stopped inside ${name}), over the ${limit}-byte limit (--max-unpacked-bytes), whatever its zip directory declares`,
          ),
        );
      }
    });
    stream.on('error', (e: Error) => finish(new ParseError(`not a readable ${what}: ${name}: ${e.message}`)));
    stream.on('end', () => finish());
  });
}

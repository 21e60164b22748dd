import { ParseError } from './parsers/types.js';

const EOCD_SIG = 0x06054b50;
const CENTRAL_SIG = 0x02014b50;

/**
 * The total uncompressed size a zip (XLSX) declares in its central directory, read without unpacking
 * anything: a small workbook can unpack to gigabytes. Zip64 archives are refused (an XLSX does not
 * need one below the cap).
 */
export function declaredUnpackedBytes(bytes: Uint8Array): number {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (v.getUint32(i, true) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ParseError('not a zip archive (no end-of-central-directory record)');
  const entries = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  if (entries === 0xffff || at === 0xffffffff) throw new ParseError('zip64 archives are not supported');
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > bytes.length || v.getUint32(at, true) !== CENTRAL_SIG) throw new ParseError('damaged zip central directory');
    const size = v.getUint32(at + 24, true);
    if (size === 0xffffffff) throw new ParseError('zip64 entries are not supported');
    total += size;
    at += 46 + v.getUint16(at + 28, true) + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
  }
  return total;
}

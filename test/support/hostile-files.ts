import { createDeflate, createDeflateRaw, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';

/**
 * Files built to hurt a document reader. A zip here is written by hand, because a zip library would
 * write the true sizes: these declare what the caller says.
 */

interface ZipEntry {
  name: string;
  /** Raw deflate data. */
  deflated: Buffer;
  /** What the headers claim the entry inflates to. */
  declaredSize: number;
}

/**
 * `total` bytes of `fill`, deflated as one stream — raw (zip) or with a zlib header (PDF FlateDecode) —
 * fed in 1 MiB pieces so the whole never sits in memory.
 */
export async function deflatedFill(total: number, fill = ' ', format: 'raw' | 'zlib' = 'raw'): Promise<Buffer> {
  const piece = Buffer.alloc(1024 * 1024, fill);
  const z = format === 'raw' ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    z.once('end', resolve);
    z.once('error', reject);
  });
  for (let left = total; left > 0; left -= piece.length) {
    const ok = z.write(left >= piece.length ? piece : piece.subarray(0, left));
    if (!ok) await new Promise<void>((resolve) => z.once('drain', resolve));
  }
  z.end();
  await ended;
  return Buffer.concat(out);
}

/** A zip (method 8 for every entry) whose local and central headers carry `declaredSize`, true or not. */
export function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 14); // CRC-32: JSZip (and so exceljs) does not check it
    local.writeUInt32LE(e.deflated.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.deflated.length, 20);
    central.writeUInt32LE(e.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + e.deflated.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/**
 * A real workbook (written by exceljs) whose first worksheet is replaced by `inflatedBytes` of
 * whitespace that its zip directory declares as 1,000 bytes: a small file, a huge unpack.
 */
export async function lyingWorkbook(inflatedBytes: number): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Sheet1').getCell('A1').value = 'hello';
  const real = await JSZip.loadAsync(Buffer.from(await wb.xlsx.writeBuffer()));
  const entries: ZipEntry[] = [];
  for (const f of Object.values(real.files)) {
    if (f.dir) continue;
    if (f.name === 'xl/worksheets/sheet1.xml') {
      entries.push({ name: f.name, deflated: await deflatedFill(inflatedBytes), declaredSize: 1000 });
      continue;
    }
    const data = await f.async('nodebuffer');
    entries.push({ name: f.name, deflated: deflateRawSync(data), declaredSize: data.length });
  }
  return zipOf(entries);
}

/**
 * A one-page PDF whose page content is a FlateDecode stream of `inflatedBytes` spaces (valid content,
 * nothing to show): a few hundred KB on disk that pdf.js would inflate into one buffer of that size.
 * The cross-reference table has the true offsets, so pdf.js reads it as a sound file.
 */
export async function inflatingPdf(inflatedBytes: number): Promise<Buffer> {
  const content = await deflatedFill(inflatedBytes, ' ', 'zlib');
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let at = parts[0]?.length ?? 0;
  const add = (...chunks: Buffer[]) => {
    offsets.push(at);
    for (const c of chunks) {
      parts.push(c);
      at += c.length;
    }
  };
  add(Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n'));
  add(Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n'));
  add(Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n'));
  add(
    Buffer.from(`4 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
    content,
    Buffer.from('\nendstream\nendobj\n'),
  );
  const xref = [
    `xref\n0 ${offsets.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkPdfInflation } from './pdf-budget.js';

/** A PDF-shaped byte string with one stream: `dict` before it, `data` in it. */
function pdfWith(dict: string, data: Buffer, head = ''): Uint8Array {
  return Buffer.concat([
    Buffer.from(`%PDF-1.7\n${head}4 0 obj\n<< ${dict} >>\nstream\n`),
    data,
    Buffer.from('\nendstream\nendobj\n%%EOF\n'),
  ]);
}

const inflating = (n: number) => deflateSync(Buffer.alloc(n, 32), { level: 9 });

describe('checkPdfInflation', () => {
  it('counts what a FlateDecode stream actually inflates to: under the limit passes, over it is refused', async () => {
    const data = inflating(100_000);
    await expect(checkPdfInflation(pdfWith(`/Length ${data.length} /Filter /FlateDecode`, data), 200_000)).resolves.toBeUndefined();
    await expect(checkPdfInflation(pdfWith(`/Length ${data.length} /Filter /FlateDecode`, data), 50_000)).rejects.toThrow(
      /the PDF inflates to more than 50000 bytes \(stopped at the stream at byte \d+; counting the bytes its streams actually inflate to\)/,
    );
  });

  it('counts a zlib stream whatever its dictionary says (a short /Length or an escaped filter name)', async () => {
    const data = inflating(100_000);
    await expect(checkPdfInflation(pdfWith('/Length 3 /Filter /Fl#61teDecode', data), 50_000)).rejects.toThrow(/more than 50000 bytes/);
    await expect(checkPdfInflation(pdfWith('/Length 3', data), 50_000)).rejects.toThrow(/more than 50000 bytes/);
  });

  it('charges a stream it cannot count (encrypted, or refused by zlib part-way) the most its filters allow', async () => {
    const data = inflating(1000);
    const encrypted = pdfWith(`/Length ${data.length} /Filter /FlateDecode`, data, '1 0 obj\n<< /Encrypt 9 0 R >>\nendobj\n');
    // Counted, 1,000 bytes; charged, the data's length × 1032.
    await expect(checkPdfInflation(encrypted, 5_000)).rejects.toThrow(/its streams are encrypted, so each is charged the most/);
    await expect(checkPdfInflation(encrypted, data.length * 1032)).resolves.toBeUndefined();
    const broken = Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff]);
    await expect(checkPdfInflation(pdfWith('/Length 6 /Filter /FlateDecode', broken), 1000)).rejects.toThrow(/could not be inflated here/);
    const lzw = Buffer.alloc(10, 1);
    await expect(checkPdfInflation(pdfWith('/Length 10 /Filter /LZWDecode', lzw), 1000)).rejects.toThrow(/could not be inflated here/);
  });

  it('leaves unfiltered streams alone', async () => {
    await expect(checkPdfInflation(pdfWith('/Length 1000', Buffer.alloc(1000, 65)), 10)).resolves.toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { lyingWorkbook } from '../../../test/support/hostile-files.js';
import { parseXlsx } from './xlsx.js';

const MiB = 1024 * 1024;

/**
 * The highest Buffer/external memory of this process while `work` runs, sampled on every turn of the
 * event loop (JSZip inflates one block per turn, so every block's output is seen).
 */
async function peakExternalDuring(work: () => Promise<unknown>): Promise<number> {
  let peak = process.memoryUsage().external;
  let sampling = true;
  const sample = (): void => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.external, m.arrayBuffers);
    if (sampling) setImmediate(sample);
  };
  sample();
  try {
    await work();
  } finally {
    sampling = false;
  }
  return peak;
}

describe('an XLSX whose zip directory lies about its sizes', () => {
  it('is refused once what it actually inflates passes the budget, keeping Buffer memory near the budget', async () => {
    // 64 MiB of whitespace as sheet1.xml, declared as 1,000 bytes; the file itself is ~65 KB.
    const bomb = new Uint8Array(await lyingWorkbook(64 * MiB));
    expect(bomb.length).toBeLessThan(1 * MiB);
    const before = process.memoryUsage().external;
    let error: unknown;
    const peak = await peakExternalDuring(() => parseXlsx(bomb, 'bomb', { maxUnpackedBytes: 4 * MiB }).catch((e: unknown) => (error = e)));
    expect(String(error)).toMatch(
      /the XLSX workbook unpacks to more than 4194304 bytes \(stopped inside "xl\/worksheets\/sheet1\.xml"\), over the 4194304-byte limit \(--max-unpacked-bytes\)/,
    );
    // Unbounded, exceljs (JSZip) holds the whole 64 MiB entry and its copy; bounded, a block's output past the budget.
    expect((peak - before) / MiB).toBeLessThan(32);
  });

  it('inside the budget, the lie is still found: the entry is unpacked to its end and its size checked', async () => {
    const small = new Uint8Array(await lyingWorkbook(64 * 1024));
    await expect(parseXlsx(small, 'small', { maxUnpackedBytes: 4 * MiB })).rejects.toThrow(
      /not a readable XLSX workbook: "xl\/worksheets\/sheet1\.xml": .*size mismatch/,
    );
  });
});

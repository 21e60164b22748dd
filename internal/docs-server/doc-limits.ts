/** What mcpd-docs spends on one file at most; each has an mcpd-docs flag. */
export interface DocLimits {
  /** Files larger than this are not indexed (--max-file-bytes). */
  maxFileBytes: number;
  /** XLSX (zip) and PDF files that inflate to more than this are not indexed (--max-unpacked-bytes). */
  maxUnpackedBytes: number;
  /** A parse that takes longer is stopped (--parse-timeout-ms). */
  parseTimeoutMs: number;
  /** Heap of the parse worker; a parse that needs more fails instead of growing the server (--parse-memory-mb). */
  parseMemoryMb: number;
  /** Parse workers running at once (--parse-workers): all parses together stay within this × parseMemoryMb. */
  parseWorkers: number;
}

export const DEFAULT_DOC_LIMITS: DocLimits = {
  maxFileBytes: 32 * 1024 * 1024,
  maxUnpackedBytes: 128 * 1024 * 1024,
  parseTimeoutMs: 30_000,
  parseMemoryMb: 512,
  parseWorkers: 2,
};

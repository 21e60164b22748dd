/** runtime.yaml `audit:` (docs/audit.md): the tamper-evident log of what callers did. */
export interface AuditSettings {
  /** On by default: `enabled: false` turns the log off. */
  enabled: boolean;
  /** The log file, absolute; '' = `audit.jsonl` in the store's state directory. */
  file: string;
  /** Write each call's arguments in clear beside their digest (off: the digest only). */
  arguments: boolean;
  /** A file that would grow past this many bytes is rotated first. */
  maxBytes: number;
  /** Rotated files kept beside the current one (`audit.jsonl.1` the newest). */
  keep: number;
}

export const DEFAULT_AUDIT: AuditSettings = {
  enabled: true,
  file: '',
  arguments: false,
  maxBytes: 16 * 1024 * 1024,
  keep: 5,
};

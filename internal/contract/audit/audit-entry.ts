/** What a call's line says about how it ended (docs/audit.md). */
export type AuditOutcome = 'ok' | 'error' | 'denied';

/** The fields of a line before the chain is added: one handled call, read, prompt get, subscription or refusal. */
export interface AuditCallFields {
  kind: 'call';
  /** ISO 8601, when the call entered the core's door. */
  time: string;
  caller: string;
  face: string;
  client: string | null;
  method: string;
  target: string | null;
  /** A tool named through tool search's call tool (then `target`): the call tool's name. */
  via?: string;
  outcome: AuditOutcome;
  /** outcome error or denied: the error the face was given. */
  message?: string;
  /** outcome denied by a policy or quota: the rule's name. */
  rule?: string;
  /** A quota's refusal: when the caller may try again. */
  retryAfterMs?: number;
  durationMs: number;
  /** `sha256:` of the arguments' canonical JSON; null when the call had none. */
  argsDigest: string | null;
  /** The arguments themselves, only with `audit.arguments: true`. */
  args?: unknown;
}

/** Entries that could not be written (a full queue, a failing disk), recorded once writing resumes. */
interface AuditGapFields {
  kind: 'gap';
  time: string;
  lost: number;
  /** When the first and the last of them happened. */
  from: string;
  to: string;
  reason: string;
}

export type AuditFields = AuditCallFields | AuditGapFields;

/** A line as written: the fields, its place in the chain, and its own hash. */
export type AuditEntry = AuditFields & {
  /** 1 for a chain's first entry, one more for each next, across rotations and restarts. */
  seq: number;
  /** The previous entry's `hash` (GENESIS for a chain's first entry). */
  prev: string;
  /** sha256 (hex) of this entry's canonical JSON without `hash`. */
  hash: string;
};

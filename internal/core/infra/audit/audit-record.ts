import { argsDigestOf } from '../../../contract/audit/audit-chain.js';
import type { AuditCallFields } from '../../../contract/audit/audit-entry.js';
import { isoTime } from '../../../shared/iso-time.js';
import { secretRedactor } from '../../../shared/redactor.js';

/**
 * A handled call as the door hands it over: its arguments as given (digested, or kept, when written) and
 * its start in epoch ms (made ISO when written: the call path does no more than it must).
 */
export type AuditRecord = Omit<AuditCallFields, 'argsDigest' | 'args' | 'time'> & { args: unknown; startedAt: number };

/**
 * The entry fields of a call (`withArguments`: runtime.yaml audit.arguments). Field by field rather than by rest
 * and spread: this runs once per entry, and copying by name is cheaper.
 */
export function fieldsOf(r: AuditRecord, withArguments: boolean): AuditCallFields {
  const fields: AuditCallFields = {
    kind: 'call',
    time: isoTime(r.startedAt),
    caller: r.caller,
    face: r.face,
    client: r.client,
    method: r.method,
    target: r.target,
    outcome: r.outcome,
    durationMs: r.durationMs,
    argsDigest: argsDigestOf(r.args),
  };
  if (r.via !== undefined) fields.via = r.via;
  if (r.message !== undefined) fields.message = secretRedactor.text(r.message);
  if (r.rule !== undefined) fields.rule = r.rule;
  if (r.retryAfterMs !== undefined) fields.retryAfterMs = r.retryAfterMs;
  // Store secrets are masked even in arguments written in clear.
  if (withArguments && r.args !== undefined) fields.args = secretRedactor.value(r.args);
  return fields;
}

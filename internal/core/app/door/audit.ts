import { isMcpdError } from '../../../shared/errors.js';
import type { AuditOutcome } from '../../../contract/audit/audit-entry.js';
import type { AuditRecord } from '../../infra/audit/audit-record.js';
import type { AuditWriter } from '../../infra/audit/audit-writer.js';
import type { CallEnd, DoorCall, Interceptor } from './interceptor.js';

// What the log keeps besides refusals: the calls that do work on a server, and subscriptions. Lists are not logged.
const SUBSCRIPTIONS = new Set(['resources/subscribe', 'resources/unsubscribe']);

// Long error messages are cut: the log says what happened, the core's log has the rest.
const MAX_MESSAGE = 500;

/**
 * The audit log (docs/audit.md): one entry per handled call, read, prompt get and subscription, and per
 * refusal of any method, whichever face it came by. First of the interceptors, so it sees every refusal.
 * Entering costs a closure; the entry is only queued when the call ends (the writer does the rest later).
 */
export function auditInterceptor(writer: Pick<AuditWriter, 'record'>): Interceptor {
  return {
    name: 'audit',
    enter(call) {
      const logged = call.admission === 'core' || SUBSCRIPTIONS.has(call.method);
      return (end) => {
        if (logged || end.refused) writer.record(recordOf(call, end));
      };
    },
  };
}

/**
 * A call of tool search's call tool is recorded as the call of the tool it names, `via` the call tool.
 * Optional fields are set only when present (no spread of empty objects: this runs for every call).
 */
function recordOf(call: DoorCall, end: CallEnd): AuditRecord {
  const { outcome, message, rule, retryAfterMs } = outcomeOf(end);
  const through = call.note.through;
  const r: AuditRecord = {
    kind: 'call',
    startedAt: call.startedAt,
    caller: call.caller,
    face: call.face,
    client: call.client ?? null,
    method: call.method,
    target: through?.tool ?? call.target ?? null,
    outcome,
    durationMs: end.durationMs,
    args: through ? through.args : call.args,
  };
  if (through !== undefined && call.target !== undefined) r.via = call.target;
  if (message !== undefined) r.message = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
  if (rule !== undefined) r.rule = rule;
  if (retryAfterMs !== undefined) r.retryAfterMs = retryAfterMs;
  return r;
}

interface Outcome {
  outcome: AuditOutcome;
  message?: string;
  rule?: string;
  retryAfterMs?: number;
}

const OK: Outcome = { outcome: 'ok' };
const ERROR_RESULT: Outcome = { outcome: 'error', message: 'the tool answered with an error result (isError)' };

/** A policy's or quota's refusal carries `{ policyRule, retryAfterMs? }` as its error's data (docs/audit.md). */
function outcomeOf(end: CallEnd): Outcome {
  const e = end.error;
  if (!e) return end.isError ? ERROR_RESULT : OK;
  const data = isMcpdError(e) ? (e.details.data as { policyRule?: unknown; retryAfterMs?: unknown } | undefined) : undefined;
  const rule = typeof data?.policyRule === 'string' ? data.policyRule : undefined;
  if (rule === undefined) return { outcome: end.refused ? 'denied' : 'error', message: e.message };
  const retryAfterMs = typeof data?.retryAfterMs === 'number' ? data.retryAfterMs : undefined;
  return { outcome: 'denied', message: e.message, rule, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

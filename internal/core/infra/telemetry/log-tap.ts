import type { LogRecord } from '../../../contract/control/control-areas.js';
import type { JsonObject } from '../../../shared/json.js';
import type { BusEntry, LogBus } from './log-bus.js';
import type { LogFn } from './logger.js';
import { plainFields } from './plain-fields.js';

/**
 * The core's log function, teed: each entry still goes to `write` (JSON lines on stderr, filtered by the
 * configured level) and, whatever its level, onto the bus, where readers choose their own level.
 */
export function tapLog(write: LogFn, bus: LogBus): LogFn {
  return (level, event, fields) => {
    write(level, event, fields);
    bus.publish(coreEntry(level, event, fields));
  };
}

/**
 * A core log call as a bus entry: fingerprint/instance/caller lifted out for scoping and attribution. Plain
 * fields (every tool call's line) are copied by name: a rest destructuring cost as much as the rest of it.
 */
export function coreEntry(level: LogRecord['level'], event: string, fields: Record<string, unknown> = {}): BusEntry {
  const { fingerprint, instance, caller, message } = fields;
  const record: LogRecord = {
    time: Date.now(),
    level,
    source: 'core',
    event,
    message: typeof message === 'string' ? message : event,
  };
  if (typeof instance === 'string') record.instance = instance;
  const kept = keptFields(fields);
  const json = plainFields(fields) ? (kept as JsonObject) : toJsonObject(kept);
  if (Object.keys(json).length > 0) record.fields = json;
  const entry: BusEntry = {
    record,
    fingerprint: typeof fingerprint === 'string' ? fingerprint : undefined,
    caller: typeof caller === 'string' ? caller : undefined,
  };
  if (typeof fields.storeFile === 'string') entry.storeFile = fields.storeFile;
  return entry;
}

/** Names lifted out of an entry's fields (the record or the entry carries them). */
const LIFTED = new Set(['fingerprint', 'instance', 'caller', 'message']);

/**
 * The fields a record keeps, `caller` first: the ones not lifted out, with the caller kept too; undefined left
 * out (as JSON leaves it out), so plain fields need no round trip through JSON text.
 */
function keptFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.caller !== undefined) out.caller = fields.caller;
  for (const k in fields) if (fields[k] !== undefined && !LIFTED.has(k)) out[k] = fields[k];
  return out;
}

/** Log fields may hold Errors, undefined or bigints; the wire needs plain JSON. */
function toJsonObject(fields: Record<string, unknown>): JsonObject {
  try {
    const text = JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? v.message : typeof v === 'bigint' ? v.toString() : v));
    return text === undefined ? {} : (JSON.parse(text) as JsonObject);
  } catch (e) {
    return { unserializable: (e as Error).message };
  }
}

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

/** A core log call as a bus entry: fingerprint/instance/caller lifted out for scoping and attribution. */
export function coreEntry(level: LogRecord['level'], event: string, fields: Record<string, unknown> = {}): BusEntry {
  const { fingerprint, instance, caller, message, ...rest } = fields;
  const record: LogRecord = {
    time: Date.now(),
    level,
    source: 'core',
    event,
    message: typeof message === 'string' ? message : event,
  };
  if (typeof instance === 'string') record.instance = instance;
  const json = plainFields(fields) ? definedOnly(caller, rest) : toJsonObject(caller === undefined ? rest : { caller, ...rest });
  if (Object.keys(json).length > 0) record.fields = json;
  return {
    record,
    fingerprint: typeof fingerprint === 'string' ? fingerprint : undefined,
    caller: typeof caller === 'string' ? caller : undefined,
    ...(typeof rest.storeFile === 'string' ? { storeFile: rest.storeFile } : {}),
  };
}

/** Plain fields as they are, undefined left out (as JSON leaves it out): no round trip through JSON text. */
function definedOnly(caller: unknown, rest: Record<string, unknown>): JsonObject {
  const out: Record<string, unknown> = {};
  if (caller !== undefined) out.caller = caller;
  for (const k in rest) if (rest[k] !== undefined) out[k] = rest[k];
  return out as JsonObject;
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
